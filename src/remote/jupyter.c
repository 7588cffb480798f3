/*
 * Finding a Jupyter server on an instance: what `jupyter server list --json` (or the older
 * `jupyter notebook list --json`) prints, one JSON object per running server.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/remote_forward.h"

/* The command that asks; a fixed script, nothing of ours in it. */
const char remote_jupyter_list_script[] =
    "jupyter server list --json 2>/dev/null || jupyter notebook list --json 2>/dev/null";

bool
remote_jupyter_parse(const char *text, struct remote_jupyter *out)
{
	const char *line = text, *end;
	bool found = false;

	memset(out, 0, sizeof(*out));
	/* The first server that says which port it listens on. */
	for (; line != NULL && *line != '\0' && !found; line = *end ? end + 1 : end) {
		cJSON *o, *port, *token, *base;

		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		o = cJSON_ParseWithLength(line, (size_t)(end - line));
		if (o == NULL)
			continue;
		port = cJSON_GetObjectItemCaseSensitive(o, "port");
		token = cJSON_GetObjectItemCaseSensitive(o, "token");
		base = cJSON_GetObjectItemCaseSensitive(o, "base_url");
		if (cJSON_IsNumber(port) && port->valuedouble >= 1 && port->valuedouble <= 65535) {
			out->port = (int)port->valuedouble;
			if (cJSON_IsString(token))
				strlcpy_(out->token, token->valuestring, sizeof(out->token));
			strlcpy_(out->base_url, cJSON_IsString(base) && base->valuestring[0] == '/' ?
			    base->valuestring : "/", sizeof(out->base_url));
			found = true;
		}
		cJSON_Delete(o);
	}
	return found;
}

enum gr_err
remote_jupyter_find(const struct remote_endpoint *ep, struct remote_jupyter *j,
    struct gr_error *err)
{
	const char *words[] = { "sh", "-c", remote_jupyter_list_script };
	struct sb out;
	bool found;
	int rc;

	sb_init(&out);
	rc = remote_capture(ep, words, sizeof(words) / sizeof(*words), &out, 1 << 20, err);
	found = rc == 0 && remote_jupyter_parse(out.buf, j);
	sb_release(&out);
	if (rc == REMOTE_EXIT_CONN)
		return err->code;
	if (!found)
		return gr_fail(err, GR_ENOTFOUND, "no Jupyter server runs on %s; start one with: "
		    "gpurent ssh %s -- 'nohup jupyter lab --no-browser --ip 127.0.0.1 --port 8888 "
		    ">jupyter.log 2>&1 &'", ep->name, ep->name);
	return GR_OK;
}
