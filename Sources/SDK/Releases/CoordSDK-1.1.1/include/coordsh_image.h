/*
 * For the host, not for plugins: which loaded image an address belongs to (dladdr, which
 * needs _GNU_SOURCE), so that the contract suite can say a C plugin's function pointers are
 * code of the plugin's own image.
 */
#ifndef COORDSH_IMAGE_H
#define COORDSH_IMAGE_H

/* The base address of the image holding `address`, or NULL when none does; `*path` (when
 * not NULL) is set to that image's file name as the dynamic loader knows it. */
const void *coordsh_image_base(const void *address, const char **path);

#endif
