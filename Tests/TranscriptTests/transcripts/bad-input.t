# A mistyped command gets a suggestion and ends a batch run with status 2 (usage error).
$ crat add 7
coordsh: error: unknown command 'crat' (did you mean 'cart add 7'?); 'help' lists the commands
[exit 2]
