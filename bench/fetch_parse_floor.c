/*
 * fetch_parse_floor.c - floor (b) of the replay benchmark: one process that POSTs to URL
 * with libcurl, keeps the whole body, parses it once with cJSON_ParseWithLength and frees
 * it. Everything gpurent must do at least, with nothing else (no model, no output).
 *
 *   fetch_parse_floor URL [GET]
 *
 * With GET (slurmrestd's /nodes, bench/slurm.sh) it GETs instead; a POST to a server that
 * answers before reading the upload gets nothing back, and exit status 1 says so.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

struct body {
	char *p;
	size_t n, cap;
};

static size_t
keep(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct body *b = ud;
	size_t n = size * nmemb;

	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			return 0;
	}
	memcpy(b->p + b->n, ptr, n);
	b->n += n;
	return n;
}

int
main(int argc, char **argv)
{
	struct body b = { 0 };
	CURL *h;
	cJSON *j;

	if (argc != 2 && !(argc == 3 && strcmp(argv[2], "GET") == 0))
		return 2;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	curl_easy_setopt(h, CURLOPT_URL, argv[1]);
	if (argc == 2)
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, "{}");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	if (curl_easy_perform(h) != CURLE_OK)
		return 1;
	curl_easy_cleanup(h);
	j = cJSON_ParseWithLength(b.p, b.n);
	if (j == NULL)
		return 1;
	printf("%d\n", cJSON_GetArraySize(cJSON_GetObjectItem(j, "offers")));
	cJSON_Delete(j);
	free(b.p);
	curl_global_cleanup();
	return 0;
}
