/* transport.h: dcqcn -- being written (issue 11). */
