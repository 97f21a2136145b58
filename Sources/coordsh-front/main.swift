// coordsh: the shell. `coordsh serve` and the supervised shell's app process run in
// coordsh-server beside it (see HostExecutables); everything else is CoordCLI.
import CoordCLI
// The shop's shared image is linked here, and nowhere in the host's modules (which use no shop
// type): it is mapped once at start, so that every shop plugin — bundled or an outside one
// built against the installed CoordShop — finds the one libCoordShop.so and shares its types.
import CoordShop

CommandLineEntry.run(Array(CommandLine.arguments.dropFirst()))
