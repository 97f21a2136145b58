#ifndef COORDSH_LOADED_LIBRARY_H
#define COORDSH_LOADED_LIBRARY_H

/* The file of the already loaded library `name` (as it was asked for, e.g. "libCoordSDK.so"),
 * as the dynamic loader opened it; NULL when no such library is loaded. Nothing is loaded.
 * (dlinfo is declared only under _GNU_SOURCE, which Swift's Glibc module does not set.) The
 * host finds libCoordSDK.so's folder so — the bundled plugins sit beside it — instead of
 * reading and searching /proc/self/maps at every start. (dladdr of one of the library's
 * symbols would not do: the executable holds copies of the library data it refers to.) */
const char *coordsh_loaded_library_path(const char *name);

#endif
