// libpq, the C client library psql is built on (the system's libpq-dev): synchronous, like
// the SDK's DataManaging, and linked once, by CoordData.
#include <libpq-fe.h>
