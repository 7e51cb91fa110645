/* vcd.h -- the bit-vector value of a VCD waveform (IEEE 1364 value change dump): what
 * fm_links.h writes its links' queues and pause states with, for side-by-side comparison with an
 * RTL simulation. A hosted helper of the composed RNIC model. */
#ifndef RM_VCD_H
#define RM_VCD_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* `b<width bits, most significant first> <code>`: one vector value change */
static void rm_vcd__bits(FILE *f, uint64_t v, unsigned width, const char *code)
{
    int i;
    fputc('b', f);
    for (i = (int)width - 1; i >= 0; i--)
        fputc((v >> i) & 1u ? '1' : '0', f);
    fprintf(f, " %s\n", code);
}

#endif
