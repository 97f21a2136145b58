# What the plugins registered: plugins, pages and generated help.
$ plugins
account 0.2.0  prefix account  4 pages  $BUILD/libAccountPlugin.so
cart 0.2.0  prefix cart  3 pages  $BUILD/libCartPlugin.so
content 0.2.0  prefix content  3 pages  $BUILD/libContentPlugin.so
payment 0.2.0  prefix payment  3 pages  $BUILD/libPaymentPlugin.so
$ pages
account/login
account/createAccount
account/confirmAccount code:string?
account/profile
cart/cart
cart/checkout
cart/offer code:string
content/catalog
content/product id:int
content/search query:string
payment/method
payment/confirm orderID:int
payment/receipt orderID:int
$ help
Commands:
  help [PREFIX]            list commands, or one feature's messages
  plugins [load PATH]      list loaded and refused plugins, or load one
  pages                    list every registered route with its parameters
  open ROUTE               open a page: feature/page key=value … or coordsh://feature/page?key=value
  back                     go back to the previous page
  where                    the current route and the chain from the page up to the app
  tree                     the coordinator tree
  deps                     what AppDependency holds at the current coordinator
  queue                    queued messages per coordinator
  trace COMMAND…           run a command and show every hop of its message
  quit                     leave the shell
Features (type PREFIX VERB [ARGS], 'help PREFIX' for details):
  account                  login, create, confirm, profile
  cart                     add, remove, show, checkout, offer
  content                  list, show, search
  payment                  method, receipt
$ help cart
cart — fill the cart and check out
  cart add [PRODUCTID] [QUANTITY]    add a product
  cart remove PRODUCTID              remove a product
  cart show                          show the cart
  cart checkout                      review the order
  cart offer CODE                    show a promo code's offer
pages:
  cart/cart                          what is in the cart
  cart/checkout                      review the order before paying
  cart/offer code:string             a promo code's offer
