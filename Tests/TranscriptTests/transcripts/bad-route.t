# An ill-typed route parameter is a usage error naming the parameter.
$ open content/product id=seven
coordsh: error: content/product: parameter 'id' must be an int, got 'seven'
[exit 2]
