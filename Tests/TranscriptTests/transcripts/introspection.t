# What the plugins registered: plugins, pages and generated help.
$ plugins
account 0.3.0  prefix account  5 pages  $BUILD/libAccountPlugin.so
  uses service secrets (granted), service passwords (granted)
cart 0.3.0  prefix cart  3 pages  $BUILD/libCartPlugin.so
  uses service accounts (granted)
content 0.3.0  prefix content  4 pages  $BUILD/libContentPlugin.so
payment 0.3.0  prefix payment  3 pages  $BUILD/libPaymentPlugin.so
$ pages
account/login
account/createAccount
account/confirmAccount code:string?
account/profile
account/outbox
cart/cart
cart/checkout key:string
cart/offer code:string
content/catalog
content/list category:string?
content/product id:int
content/search query:string
payment/method
payment/receipt orderID:int
payment/orders
$ help
Commands:
  help [PREFIX [VERB] | ROUTE]  list commands, a feature's messages, one message or one page
  plugins [NAME | load PATH | rescan | stats | stats reset | allow NAME | grant NAME [WHAT…] | revoke NAME [WHAT…]]  list loaded and refused plugins, load one, look for new ones, let a quarantined one load again, grant or take back what an outside one asks for, or show what each one's code cost
  pages                        list every registered route with its parameters
  open ROUTE                   open a page: feature/page key=value … or coordsh://feature/page?key=value
  back                         go back to the previous page
  where                        the current route and the chain from the page up to the app
  tree                         the coordinator tree (--format dot|mermaid|svg draws it)
  map                          every feature, its pages and the messages between features, seen and declared (--format dot|mermaid|svg draws it)
  deps                         what AppDependency holds at the current coordinator
  queue                        queued messages per coordinator
  scenes                       the open scenes: one per terminal or client of the app
  trace COMMAND…               run a command and show every hop of its message (--format dot|mermaid|svg first draws it)
  config                       which config file is in force, every value and where it came from
  echo TEXT                    print TEXT (for scripts)
  quit                         leave the shell
Features (type PREFIX VERB [ARGS], 'help PREFIX' for details):
  account                      create, confirm, login, logout, whoami, outbox
  cart                         add, remove, set, show, offer, checkout
  content                      list, show, search
  payment                      pay, receipt, orders
$ help cart
cart — fill the cart and check out
  cart add [PRODUCTID] [QUANTITY]    add a product
  cart remove PRODUCTID              remove a product
  cart set PRODUCTID QUANTITY        change a product's quantity
  cart show                          show the cart
  cart offer CODE                    apply a promo code
  cart checkout                      check out (log in first, or be asked to)
pages:
  cart/cart                          what is in the cart
  cart/checkout key:string           review the order before paying
  cart/offer code:string             what a promo code gives
$ scenes
terminal   pid {{*}}
$ map
account (account 0.3.0): prefix account, 6 messages, pages login, createAccount, confirmAccount, profile, outbox
cart (cart 0.3.0): prefix cart, 6 messages, pages cart, checkout, offer
content (content 0.3.0): prefix content, 3 messages, pages catalog, list, product, search
payment (payment 0.3.0): prefix payment, 3 messages, pages method, receipt, orders
between features:
  account → host: service secrets (declared)
  account → host: service passwords (declared)
  cart → account: service accounts (declared)
$ plugins allow nothing
coordsh: error: plugins allow: no plugin named 'nothing' is quarantined
[exit 1]
