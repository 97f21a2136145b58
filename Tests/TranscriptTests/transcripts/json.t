# args: --json
# --json prints one JSON document per command, errors included.
$ open content/product id=7
{"message":"globalDisplay","ok":true,"outcome":"handled","page":{"fields":{"currency":"EUR","price":"1900","productID":"7"},"lines":["19.00 EUR · shoes","Wool-lined house slippers","cart add [QTY] — put this product in the cart · back — return"],"route":"content/product id=7","title":"#7 Slippers","url":"coordsh://content/product?id=7"}}
$ cart add
{"message":"cartAdd","ok":true,"outcome":"handled","page":{"fields":{"currency":"EUR","items":"1","total":"1900"},"lines":["  #7   Slippers                       1 × 19.00 EUR = 19.00 EUR","  subtotal 19.00 EUR","  total 19.00 EUR","cart checkout — check out"],"route":"cart/cart","title":"Cart (1 item)","url":"coordsh://cart/cart"}}
$ cart remove 9
{"error":{"code":"failed","message":"cart remove: product 9 is not in the cart"},"ok":false}
coordsh: error: cart remove: product 9 is not in the cart
[exit 1]
