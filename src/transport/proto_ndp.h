/* transport.h: ndp -- being written (issue 11). */
