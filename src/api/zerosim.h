/* zerosim.h -- zerosim as a library (libzerosim.so): one request in, one JSON answer out.
 *
 * A request is a JSON object naming the command and carrying the settings the command-line
 * flags of the same names take:
 *
 *   {"command": "estimate", "model": "llama-2-7b", "gpus": 8, "seq-len": 4096,
 *    "checkpointing": "full"}
 *
 * Each key but "command" and "args" is a flag ("seq_len" is read as --seq-len); true is a
 * switch given (false leaves it out), a number or string its value, a list a comma list
 * ("gpus": [8, 16, 32] for sweep), null leaves it out. "args" is a list of positional
 * arguments (validate's runs files). The commands: estimate, compare, plan, sweep, validate,
 * report and list ("what": "models" or "hardware").
 *
 * The answer is what `zerosim COMMAND ... --format json` prints for those settings, byte for
 * byte (sweep's: a JSON object a line); list's is {"models": [names...]} or {"hardware": [...]};
 * report's is the self-contained HTML page `zerosim report -o -` writes (not JSON; "output" is
 * refused).
 * A refused request is {"error": {"code": 2|3|4, "message": "..."}} with the command line's
 * message (2 usage, 3 bad input file, 4 output). Nothing is printed and nothing exits; calls
 * from several threads at once are safe. Catalogs: $ZEROSIM_DATA, else models/ and hardware/
 * beside the program, else in the working directory (as the command line finds them). */
#ifndef ZEROSIM_H
#define ZEROSIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* The interface's version: the request format and zs_* functions. Raised when they change. */
#define ZS_API_VERSION 1

/* Answer request_json in *response_json (a NUL-terminated string to free with zs_free, set
 * whatever the outcome). Returns the command line's exit status: 0 done, 1 computed but
 * nothing fits (the answer is the JSON that says so), 2 a bad request, 3 a bad input file,
 * 4 an output error or out of memory (*response_json may then be NULL). */
int zs_call(const char *request_json, char **response_json);

/* Free an answer from zs_call (NULL is ignored). */
void zs_free(char *response_json);

/* The release, as `zerosim --version` prints it without the name ("0.14.0"). */
const char *zs_version(void);

/* ZS_API_VERSION of the library loaded (may differ from the header a program was built with). */
int zs_api_version(void);

#ifdef __cplusplus
}
#endif

#endif
