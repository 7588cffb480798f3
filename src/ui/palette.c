/*
 * The semantic palette: one attribute per meaning, on 8 or 256 colours or none.
 */
#include <curses.h>

#include "gpurent/output.h"
#include "ui.h"

static int attrs[UC__COUNT];

/* Pair n as fg on bg, where -1 is the terminal's own colour. */
static int
pair(short n, short fg, short bg)
{
	init_pair(n, fg, bg);
	return (int)COLOR_PAIR(n);
}

void
ui_palette_init(bool color)
{
	bool rich;

	/* Without colour, attributes alone keep every meaning apart (NO_COLOR, mono). */
	attrs[UC_NORMAL] = A_NORMAL;
	attrs[UC_HEADER] = A_REVERSE;
	attrs[UC_TAB] = A_NORMAL;
	attrs[UC_TAB_ACTIVE] = A_REVERSE | A_BOLD;
	attrs[UC_COLHEAD] = A_BOLD | A_UNDERLINE;
	attrs[UC_SELECT] = A_REVERSE;
	attrs[UC_GOOD] = A_NORMAL;
	attrs[UC_WARN] = A_BOLD;
	attrs[UC_BAD] = A_BOLD | A_UNDERLINE;
	attrs[UC_DIM] = A_DIM;
	attrs[UC_ACCENT] = A_BOLD;
	attrs[UC_IDLE] = A_UNDERLINE;
	attrs[UC_KEY] = A_BOLD;
	attrs[UC_DIALOG] = A_NORMAL;
	if (!color || !has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	rich = COLORS >= 256;
	attrs[UC_HEADER] = pair(1, COLOR_WHITE, rich ? 24 : COLOR_BLUE) | A_BOLD;
	attrs[UC_TAB_ACTIVE] = pair(2, COLOR_BLACK, COLOR_CYAN) | A_BOLD;
	attrs[UC_COLHEAD] = pair(3, rich ? 250 : COLOR_WHITE, rich ? 238 : -1) | A_BOLD;
	attrs[UC_SELECT] = pair(4, COLOR_BLACK, rich ? 117 : COLOR_CYAN);
	attrs[UC_GOOD] = pair(5, COLOR_GREEN, -1);
	attrs[UC_WARN] = pair(6, COLOR_YELLOW, -1);
	attrs[UC_BAD] = pair(7, COLOR_RED, -1) | A_BOLD;
	attrs[UC_DIM] = rich ? pair(8, 244, -1) : (int)(pair(8, COLOR_WHITE, -1) | A_DIM);
	attrs[UC_ACCENT] = pair(9, COLOR_CYAN, -1) | A_BOLD;
	attrs[UC_IDLE] = pair(10, rich ? 208 : COLOR_MAGENTA, -1) | A_BOLD;
	attrs[UC_KEY] = pair(11, COLOR_CYAN, -1) | A_BOLD;
	attrs[UC_DIALOG] = pair(12, COLOR_WHITE, rich ? 236 : COLOR_BLUE);
}

int
ui_attr(enum ui_color c)
{
	return attrs[c];
}

enum ui_color
ui_color_of(int out_color)
{
	switch (out_color) {
	case OC_GOOD: return UC_GOOD;
	case OC_WARN: return UC_WARN;
	case OC_BAD: return UC_BAD;
	case OC_DIM: return UC_DIM;
	case OC_ACCENT: return UC_ACCENT;
	default: return UC_NORMAL;
	}
}
