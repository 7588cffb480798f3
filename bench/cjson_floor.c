/*
 * cjson_floor.c - the floor for the vast search benchmark: read a body from a file and
 * parse it with cJSON, nothing else. Prints the parse time in milliseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cjson/cJSON.h>

int
main(int argc, char **argv)
{
	struct timespec a, b;
	FILE *f;
	char *buf;
	long n;
	cJSON *j;

	if (argc != 2 || (f = fopen(argv[1], "rb")) == NULL)
		return 2;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n)
		return 2;
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &a);
	j = cJSON_ParseWithLength(buf, (size_t)n);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (j == NULL)
		return 1;
	printf("%.1f\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	cJSON_Delete(j);
	free(buf);
	return 0;
}
