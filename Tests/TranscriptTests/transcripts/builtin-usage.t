# Built-in commands are declared by their forms: usage, parsing and errors come from one
# declaration (a form its words chose shows its own usage; a route that is none says why).
# args: --keep-going
$ plugins load
coordsh: error: usage: plugins load PATH
$ plugins rescan now
coordsh: error: usage: plugins rescan
$ plugins allow
coordsh: error: usage: plugins allow NAME
$ plugins nosuch
coordsh: error: no plugin named 'nosuch' is loaded; 'plugins' lists them
$ plugins grant
coordsh: error: usage: plugins grant NAME [WHAT…]
$ echo
coordsh: error: usage: echo TEXT
$ open nowhere
coordsh: error: malformed route 'nowhere': expected feature/page, e.g. content/catalog
$ help cart add now
coordsh: error: usage: help [PREFIX [VERB] | ROUTE]
$ trace
coordsh: error: usage: trace COMMAND…
$ help plugins
plugins [NAME | load PATH | rescan | stats | stats reset | allow NAME | grant NAME [WHAT…] | revoke NAME [WHAT…]]  — list loaded and refused plugins, load one, look for new ones, let a quarantined one load again, grant or take back what an outside one asks for, or show what each one's code cost
[exit 2]
