# args: --json
# --json prints one JSON document per command, errors included.
$ open content/product id=7
{"message":"globalDisplay","ok":true,"outcome":"handled","page":{"fields":{"productID":"7"},"lines":["cart add — put this product in the cart","back — return"],"route":"content/product id=7","title":"Product 7","url":"coordsh://content/product?id=7"}}
$ cart add
{"message":"cartAdd","ok":true,"outcome":"handled","page":{"fields":{"items":"1"},"lines":["product 7 × 1"],"route":"cart/cart","title":"Cart (1 item)","url":"coordsh://cart/cart"}}
$ cart remove 9
{"error":{"code":"failed","message":"cart remove: product 9 is not in the cart"},"ok":false}
coordsh: error: cart remove: product 9 is not in the cart
[exit 1]
