# A well-formed command that fails when it runs ends the batch with status 1.
$ cart checkout
coordsh: error: cart checkout: the cart is empty; 'cart add PRODUCT_ID' first
[exit 1]
