# args: --keep-going
# What each plugin's code cost, counted as it runs: per plugin and per message or page, the
# runs, the failures, its own time (median, 99th percentile, longest) and its SQL, each page of a
# plugin in a row of its own; a reset.
$ plugins stats
since {{*}} ago; a run's time is its own (what it sent to other handlers, and the host's services it called, are theirs)
no plugin code has run yet
$ cart add 3 2
── Cart (2 items) ──
  #3   Leather Boots                  2 × 129.00 EUR = 258.00 EUR
  subtotal 258.00 EUR
  total 258.00 EUR
cart checkout — check out
$ cart add 9
── Cart (3 items) ──
  #3   Leather Boots                  2 × 129.00 EUR = 258.00 EUR
  #9   Red Sneakers                   1 × 45.00 EUR = 45.00 EUR
  subtotal 303.00 EUR
  total 303.00 EUR
cart checkout — check out
$ cart remove 99
coordsh: error: cart remove: product 99 is not in the cart
$ content show 9
── #9 Red Sneakers ──
45.00 EUR · shoes
Bright red canvas high-tops
cart add [QTY] — put this product in the cart · back — return
$ content search red
── Search: red (5) ──
  #9   Red Sneakers                      45.00 EUR  shoes
  #18  Red Scarf                         19.00 EUR  clothing
  #29  Red Mars                          15.90 EUR  books
  #37  Red Teapot                        34.00 EUR  kitchen
  #58  Red USB Cable                      9.00 EUR  electronics
$ plugins stats
since {{*}} ago; a run's time is its own (what it sent to other handlers, and the host's services it called, are theirs)
cart: 5 runs, 1 failed, {{*}} own{{*}}
  message   cartAdd                 2 runs  p50 {{*}}  p99 {{*}}  max {{*}}
  message   cartRemove              1 run, 1 failed  p50 {{*}}  p99 {{*}}  max {{*}}
  page      cart/cart               2 runs  p50 {{*}}  p99 {{*}}  max {{*}}
content: 4 runs, {{*}} own{{*}}
  message   contentSearch           1 run  p50 {{*}}  p99 {{*}}  max {{*}}
  message   contentShow             1 run  p50 {{*}}  p99 {{*}}  max {{*}}
  page      content/product         1 run  p50 {{*}}  p99 {{*}}  max {{*}}
  page      content/search          1 run  p50 {{*}}  p99 {{*}}  max {{*}}
$ plugins stats reset
plugin figures reset
$ plugins stats
since {{*}} ago; a run's time is its own (what it sent to other handlers, and the host's services it called, are theirs)
no plugin code has run yet
$ plugins stats now
coordsh: error: usage: plugins stats
[exit 1]
