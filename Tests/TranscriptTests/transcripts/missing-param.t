$ open content/product
coordsh: error: content/product: missing parameter 'id' (int)
[exit 2]
