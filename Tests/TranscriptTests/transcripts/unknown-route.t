$ open cart/chekout
coordsh: error: unknown page 'cart/chekout' (did you mean 'cart/checkout'?); 'pages' lists every route
[exit 2]
