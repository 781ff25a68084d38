/*
 * first_move.c — a minimal Othello engine plugin in C11, written against
 * engines/abi/include/othello_engine.h (ABI v1.0).
 *
 * It plays the legal move with the lowest square index (a1 = 0 ... h8 = 63), or, with the
 * option Skip = N, the legal move at position N modulo the number of legal moves in that
 * order. It passes exactly when no move is legal. It shows every part of the ABI an engine
 * needs: the exported entry point, an option descriptor with set_option and last_error,
 * per-instance state, the search result and one info report through the host callback.
 *
 * Build (see README.md):
 *   cc -std=c11 -O2 -shared -fPIC -I engines/abi/include engines/c_example/first_move.c \
 *      -o libfirst_move.so
 */
#include "othello_engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define FM_EXPORT __declspec(dllexport)
#else
#define FM_EXPORT __attribute__((visibility("default")))
#endif

/* One instance: the host (for the info callback), the option value, the last error. */
struct oe_engine {
    const oe_host *host;
    int skip;
    char error[256];
};

/* ---- Move generation: for each empty square, walk the 8 directions. ---- */

static const int DIR_COL[8] = {1, -1, 0, 0, 1, 1, -1, -1};
static const int DIR_ROW[8] = {0, 0, 1, -1, 1, -1, 1, -1};

static int on_board(int col, int row) {
    return col >= 0 && col < 8 && row >= 0 && row < 8;
}

static int has_disc(uint64_t discs, int col, int row) {
    return (int)((discs >> (row * 8 + col)) & 1u);
}

/* Legal moves of the side owning `me` against `you`, one bit per square. A move is an empty
 * square from which, in some direction, a run of at least one opponent disc ends on an own
 * disc. */
static uint64_t legal_moves(uint64_t me, uint64_t you) {
    uint64_t moves = 0;
    for (int sq = 0; sq < 64; ++sq) {
        if (((me | you) >> sq) & 1u) {
            continue;
        }
        for (int d = 0; d < 8; ++d) {
            int col = sq % 8 + DIR_COL[d];
            int row = sq / 8 + DIR_ROW[d];
            int run = 0;
            while (on_board(col, row) && has_disc(you, col, row)) {
                col += DIR_COL[d];
                row += DIR_ROW[d];
                ++run;
            }
            if (run > 0 && on_board(col, row) && has_disc(me, col, row)) {
                moves |= (uint64_t)1 << sq;
                break;
            }
        }
    }
    return moves;
}

static int popcount(uint64_t x) {
    int n = 0;
    for (; x != 0; x &= x - 1) {
        ++n;
    }
    return n;
}

/* ---- Options ---- */

static const oe_option_desc OPTIONS[] = {
    {"Skip", OE_OPTION_INT, "0", 0.0, 63.0, NULL, 0,
     "play the legal move at this index (modulo the count) in square order"},
};

/* ASCII case-insensitive equality (option names match case-insensitively, as in the SDK). */
static int name_equals(const char *a, const char *b) {
    for (; *a != '\0' && *b != '\0'; ++a, ++b) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (x != y) {
            return 0;
        }
    }
    return *a == *b;
}

static oe_status fail(oe_engine *engine, oe_status status, const char *message) {
    snprintf(engine->error, sizeof engine->error, "%s", message);
    return status;
}

/* ---- The ABI functions ---- */

static oe_engine *fm_create(const oe_host *host) {
    oe_engine *engine = calloc(1, sizeof *engine);
    if (engine != NULL) {
        engine->host = host;
        engine->skip = 0;
        engine->error[0] = '\0';
    }
    return engine;
}

static void fm_destroy(oe_engine *engine) {
    free(engine);
}

static oe_status fm_set_option(oe_engine *engine, const char *name, const char *value) {
    if (engine == NULL) {
        return OE_INVALID_ARGUMENT;
    }
    if (name == NULL || value == NULL) {
        return fail(engine, OE_INVALID_ARGUMENT, "null option name or value");
    }
    if (!name_equals(name, "Skip")) {
        snprintf(engine->error, sizeof engine->error, "unknown option `%s` (options: Skip)",
                 name);
        return OE_UNKNOWN_OPTION;
    }
    char *end = NULL;
    errno = 0;
    long v = strtol(value, &end, 10);
    while (end != NULL && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) {
        ++end;
    }
    if (end == value || end == NULL || *end != '\0' || errno != 0) {
        snprintf(engine->error, sizeof engine->error, "option Skip: `%s` is not an integer",
                 value);
        return OE_INVALID_VALUE;
    }
    if (v < 0 || v > 63) {
        snprintf(engine->error, sizeof engine->error, "option Skip: %ld is outside 0..=63", v);
        return OE_INVALID_VALUE;
    }
    engine->skip = (int)v;
    return OE_OK;
}

static oe_status fm_new_game(oe_engine *engine) {
    return engine == NULL ? OE_INVALID_ARGUMENT : OE_OK;
}

static oe_status fm_search(oe_engine *engine, const oe_position *position,
                           const oe_limits *limits, const atomic_uint *stop,
                           oe_search_result *result) {
    if (engine == NULL) {
        return OE_INVALID_ARGUMENT;
    }
    if (position == NULL || limits == NULL || stop == NULL || result == NULL) {
        return fail(engine, OE_INVALID_ARGUMENT, "null argument to search");
    }
    if (result->struct_size < sizeof(oe_search_result)) {
        return fail(engine, OE_INVALID_ARGUMENT, "search result struct too small");
    }
    if (position->side_to_move > 1) {
        return fail(engine, OE_INVALID_ARGUMENT, "side_to_move is not 0 or 1");
    }
    if ((position->black & position->white) != 0) {
        return fail(engine, OE_INVALID_ARGUMENT, "black and white overlap");
    }
    /* The search is instantaneous, so the stop flag and the limits need no polling. */
    (void)atomic_load_explicit(stop, memory_order_relaxed);

    uint64_t me = position->side_to_move == 0 ? position->black : position->white;
    uint64_t you = position->side_to_move == 0 ? position->white : position->black;
    uint64_t moves = legal_moves(me, you);
    int count = popcount(moves);

    int move = OE_MOVE_PASS;
    if (count > 0) {
        /* Drop the lowest `skip % count` moves, then take the lowest remaining one. */
        for (int k = engine->skip % count; k > 0; --k) {
            moves &= moves - 1;
        }
        move = 0;
        while (((moves >> move) & 1u) == 0) {
            ++move;
        }
    }

    oe_search_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof(oe_search_info);
    info.depth = 1;
    info.selectivity = 100;
    info.pv_length = 1;
    info.score = (double)(popcount(me) - popcount(you)); /* current disc difference */
    info.nodes = (uint64_t)count;
    info.time_ms = 0;
    info.pv[0] = (uint8_t)move;

    /* One live report, if the host gave a callback (and knows the field). */
    const oe_host *host = engine->host;
    if (host != NULL && host->struct_size >= sizeof(oe_host) && host->info != NULL) {
        host->info(host->host_data, &info);
    }

    result->move = move;
    result->info = info;
    return OE_OK;
}

static const char *fm_last_error(const oe_engine *engine) {
    return engine == NULL ? "" : engine->error;
}

static const oe_engine_api API = {
    sizeof(oe_engine_api),
    OE_ABI_MAJOR,
    OE_ABI_MINOR,
    "FirstMove",
    "1.0.0",
    "othello-tournament examples",
    (uint32_t)(sizeof OPTIONS / sizeof OPTIONS[0]),
    OPTIONS,
    fm_create,
    fm_destroy,
    fm_set_option,
    fm_new_game,
    fm_search,
    fm_last_error,
    NULL, /* search_game (ABI 1.1): not needed, the host then calls fm_search */
};

FM_EXPORT const oe_engine_api *othello_engine_v1(void) {
    return &API;
}
