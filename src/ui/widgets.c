/*
 * widgets.c - the drawing primitives every part of the dashboard uses.
 */
#include <curses.h>
#include <time.h>

#include "ui.h"

double
ui_clock(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void
ui_put(int y, int x, int w, const char *text, int attr, bool right)
{
	char buf[1024];

	if (w <= 0)
		return;
	ui_text_fit(buf, sizeof(buf), text, w, right);
	attrset(attr);
	mvaddstr(y, x, buf);
	attrset(A_NORMAL);
}
