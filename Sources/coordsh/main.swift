// coordsh: the shell. `coordsh serve` and the supervised shell's app process run in
// coordsh-server beside it (see HostExecutables); everything else is CoordCLI.
import CoordCLI

CommandLineEntry.run(Array(CommandLine.arguments.dropFirst()))
