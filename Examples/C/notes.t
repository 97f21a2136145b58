# args: --password-env SHOP_PASSWORD
# env: SHOP_PASSWORD=correct horse battery
# The C notes plugin (Examples/C/notes.c) through coordsh; CPluginTests builds it with cc and
# adds its folder. Its messages wait for a login; its handlers are C functions with typed
# parameters called through libffi; its table is its own; a missing note is one line.
$ notes list
note: notesList() is waiting at coordinator notes for user: log in to keep notes ('account login EMAIL')
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
── Notes ──
note: logged in as ann@example.com
note: notesList() replayed at coordinator notes
$ notes add 'buy milk'
── Notes ──
#1  buy milk
$ notes add 'call mum' 5
── Notes ──
#1  buy milk
#2  call mum
$ notes show 2
── Note 2 ──
call mum
$ notes remove 1
── Notes ──
#2  call mum
$ help notes
notes — notes kept per person, in C
  notes add TEXT [PRIORITY]          note something
  notes remove ID                    forget a note
  notes show ID                      show one note
  notes list                         show your notes
pages:
  notes/list                         your notes
  notes/item id:int                  one note
$ trace notes list
trace notesList():
  1. page notes/list — passed on
  2. coordinator notes — handled
── Notes ──
#2  call mum
# restart
$ notes list
note: notesList() is waiting at coordinator notes for user: log in to keep notes ('account login EMAIL')
$ account login ann@example.com
── Notes ──
#2  call mum
note: logged in as ann@example.com
note: notesList() replayed at coordinator notes
$ notes remove 9
coordsh: error: notes remove: there is no note 9 of yours
[exit 1]
