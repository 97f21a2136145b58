// The ABI is the header; this file only gives the C target something to compile.
#include "coordsh_plugin.h"
