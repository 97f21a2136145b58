# args: --password-env SHOP_PASSWORD
# env: SHOP_PASSWORD=correct horse battery
# The guide's worked example through coordsh (GuideTests builds the plugin and adds its folder):
# every verb waits for a login and shows the login page; `add` without an id keeps the product
# page's product; `move` puts it in the cart; the list outlives the shell; a product not on
# the list is a one-line error.
$ wishlist show
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: wishlistShow() is waiting at coordinator wishlist for user: log in to use your wishlist ('account login EMAIL')
$ queue
coordinator wishlist: 1/32
  wishlistShow() waiting for user
$ account create ann@example.com
── Confirm your account ──
account outbox — see the code · account confirm CODE — use it
note: created ann@example.com; a confirmation code was sent: 'account outbox' shows it, 'account confirm CODE' uses it
$ account outbox
── Outbox (1) ──
  #1 {{*}} to ann@example.com: Confirm your coordsh shop account
      Your confirmation code is {{code}}. Run: account confirm {{code}}
$ account confirm {{code}}
── Log in ──
account login EMAIL — asks for the password (or takes it from --password-env)
account create EMAIL — no account yet?
note: confirmed ann@example.com; log in with 'account login ann@example.com'
$ account login ann@example.com
── Wishlist ──
(empty)
note: logged in as ann@example.com
note: wishlistShow() replayed at coordinator wishlist
$ content show 9
── #9 Red Sneakers ──
45.00 EUR · shoes
Bright red canvas high-tops
cart add [QTY] — put this product in the cart · back — return
$ wishlist add
── Wishlist ──
#9  Red Sneakers — 45.00 EUR
wishlist move ID — put one in the cart
$ wishlist add 12
── Wishlist ──
#9  Red Sneakers — 45.00 EUR
#12  Rain Jacket — 119.00 EUR
wishlist move ID — put one in the cart
$ wishlist move 9
── Cart (1 item) ──
  #9   Red Sneakers                   1 × 45.00 EUR = 45.00 EUR
  subtotal 45.00 EUR
  total 45.00 EUR
cart checkout — check out
$ wishlist show
── Wishlist ──
#12  Rain Jacket — 119.00 EUR
wishlist move ID — put one in the cart
# restart
$ account login ann@example.com
── Logged in as ann@example.com ──
account logout — log out
note: logged in as ann@example.com
$ wishlist show
── Wishlist ──
#12  Rain Jacket — 119.00 EUR
wishlist move ID — put one in the cart
$ wishlist remove 5
coordsh: error: wishlist remove: product 5 is not on your wishlist
[exit 1]
