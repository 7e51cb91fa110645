/* transport.h: irn -- being written (issue 11). */
