/* wickfs.h - every operation, for the applets: the C face of the seed's
 * FileSystem interface, one header per module included here. lib files
 * include the module headers they use, not this one. */
#ifndef WFS_WICKFS_H
#define WFS_WICKFS_H

#include "confine.h"
#include "ctx.h"
#include "edit.h"
#include "exec.h"
#include "fs.h"
#include "globwalk.h"
#include "grep.h"

#endif
