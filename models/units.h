/* units.h: the binary byte units, spelt once.  Quantities are SI decimal
 * unless their name says GiB (STYLE.md); a GiB is 2^30 bytes (IEC 80000-13),
 * the units of nvidia-smi, PyTorch's memory statistics and EC2 instance
 * memory. */
#ifndef SC_UNITS_H
#define SC_UNITS_H

#define SC_KiB_BYTES 1024.0          /* bytes in a KiB, 2^10 */
#define SC_MiB_BYTES 1048576.0       /* bytes in a MiB, 2^20 */
#define SC_GiB_BYTES 1073741824.0    /* bytes in a GiB, 2^30 */
#define SC_TiB_BYTES 1099511627776.0 /* bytes in a TiB, 2^40 */

#endif
