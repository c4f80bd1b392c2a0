// Extended attributes (fgetxattr, fsetxattr), which Glibc's Swift module does not include:
// the ETag `--refresh` keeps with each downloaded file.
#include <sys/xattr.h>
