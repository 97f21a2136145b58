$ cart ad 7
coordsh: error: 'cart' has no command 'ad' (did you mean 'cart add'?); try 'help cart'
[exit 2]
