// libpq's declarations (the system's libpq-dev), without linking it: coordsh loads libpq with
// dlopen the first time a PostgreSQL database is opened (CLibPQLoader), so that the SQLite
// default does not map libpq and the two dozen libraries it pulls in (Kerberos, LDAP, GnuTLS)
// at every start. The benchmark's plain libpq loop links it itself.
#include <postgresql/libpq-fe.h>
