# Help generated from what the plugins registered, and did-you-mean for every kind of typo.
# args: --keep-going
$ help cart add
usage: cart add [PRODUCTID] [QUANTITY]
  add a product
  sends cartAdd up the chain from the current page
arguments (positional, NAME=VALUE or --NAME VALUE):
  productID (int, optional)          product id (default: the product shown)
  quantity (int, optional)           how many (default 1)
$ help content/product
page content/product id:int
  one product
  open content/product id=…
parameters:
  id (int)                           product id
$ help payment pay
usage: payment pay CARDNUMBER
  pay the checkout
  sends paymentPay up the chain from the current page
arguments (positional, NAME=VALUE or --NAME VALUE):
  cardNumber (string, secret: kept out of history) card number (test: 4242424242424242)
$ help cart fly
coordsh: error: 'cart' has no command 'fly'; try 'help cart'
$ crat add 7
coordsh: error: unknown command 'crat' (did you mean 'cart add 7'?); 'help' lists the commands
$ cart ad 7
coordsh: error: 'cart' has no command 'ad' (did you mean 'cart add'?); try 'help cart'
$ open content/prodcut id=7
coordsh: error: unknown page 'content/prodcut' (did you mean 'content/product'?); 'pages' lists every route
$ open content/product idd=7
coordsh: error: content/product: unknown parameter 'idd' (did you mean 'id'?); it takes id
$ content list --categroy shoes
coordsh: error: content list: unknown option '--categroy' (did you mean '--category'?)
$ content list --category shoe
coordsh: error: content list: no category 'shoe' (did you mean 'shoes'?); 'open content/catalog' lists them
$ echo done # a trailing comment is ignored
done
$ echo issue#42 'in # quotes' "#too" #gone
issue#42 in # quotes #too
$ help quit
quit  — leave the shell
$ help crat
coordsh: error: unknown feature 'crat' (did you mean 'cart'?); 'plugins' lists the loaded ones
$ help cart add now
coordsh: error: usage: help [PREFIX [VERB] | ROUTE]
$ help carts/cart
coordsh: error: unknown feature 'carts' (did you mean 'cart'?); 'plugins' lists the loaded ones
$ help cart/chekout
coordsh: error: unknown page 'cart/chekout' (did you mean 'cart/checkout'?); 'pages' lists every route
$ where now
coordsh: error: where takes no arguments, got 'now'
$ trace help
coordsh: error: trace takes a feature command or open, e.g. 'trace cart add 7'
[exit 2]
