/*
 * othello_engine.h — the Othello engine plugin ABI, version 1.1.
 *
 * This header is the normative definition of the ABI. A plugin is a dynamic library (.so,
 * .dylib, .dll) that exports one symbol, `othello_engine_v1`, returning a pointer to a static
 * function table, `oe_engine_api`. Everything else is reached through that table.
 *
 * Versioning
 *   The major version is part of the entry symbol's name; a host for major 1 looks up
 *   `othello_engine_v1` and nothing else. A minor version adds fields at the end of a struct
 *   and never changes an existing one; every extensible struct starts with `struct_size`, set
 *   by whoever fills it in, so that each side reads only the fields the other side knows.
 *   A host refuses a plugin whose `abi_major` differs from its own or whose `struct_size` is
 *   smaller than the version it claims.
 *
 * History
 *   1.0  the first version.
 *   1.1  `search_game` at the end of oe_engine_api: the same search, given the whole game (its
 *        start position and the moves played since) instead of only the current position, for
 *        engines with opening books, for bridges to protocols that replay games (GTP), and for
 *        repetition-aware learning. A 1.1 host calls it when the plugin's table is large enough
 *        to hold it and it is not NULL, and `search` otherwise; a 1.0 plugin (struct_size =
 *        OE_ENGINE_API_SIZE_V1_0) keeps working unchanged.
 *
 * Conventions
 *   - Strings are NUL-terminated UTF-8. A string passed into a call is owned by the caller and
 *     valid only during the call; a string returned by the plugin is owned by the plugin, see
 *     each function for how long it stays valid.
 *   - Squares: a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63 (columns a-h left to right,
 *     rows 1-8 top to bottom). A move is 0..63, or OE_MOVE_PASS (64).
 *   - Scores are in discs, from the side to move's point of view, positive = good for it.
 *   - Times are in milliseconds.
 *
 * Threading
 *   One instance (oe_engine*) is called by one host thread at a time: calls on the same
 *   instance never overlap. Different instances may be used from different threads at once,
 *   so all state lives in instances (the same library may play both sides of a game). The
 *   stop flag is written by another host thread while `search` runs. The info callback may be
 *   called from any thread the engine creates, but only while `search` is running.
 *
 * The host never unloads a plugin (no dlclose), so static data may live for the process.
 */
#ifndef OTHELLO_ENGINE_H
#define OTHELLO_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OE_ABI_MAJOR 1
#define OE_ABI_MINOR 1

/* The move value of a pass. */
#define OE_MOVE_PASS 64
/* Longest principal variation carried in a result or an info report. */
#define OE_MAX_PV 64

/* Status codes returned by the calls. Anything but OE_OK comes with a message from
 * `last_error`. */
typedef int32_t oe_status;
#define OE_OK 0
#define OE_ERROR 1              /* any failure; see last_error */
#define OE_INVALID_ARGUMENT 2   /* a null pointer, a bad position, a bad struct size */
#define OE_UNKNOWN_OPTION 3     /* set_option with a name the engine does not declare */
#define OE_INVALID_VALUE 4      /* set_option with a value that does not parse or is out of range */
#define OE_PANIC 5              /* the engine caught an internal panic/exception at the boundary */

/* Option types, for the option descriptors below. */
typedef uint32_t oe_option_type;
#define OE_OPTION_BOOL 0   /* "true" / "false" */
#define OE_OPTION_INT 1    /* decimal integer within [min, max] */
#define OE_OPTION_FLOAT 2  /* decimal number within [min, max] */
#define OE_OPTION_ENUM 3   /* one of enum_values */
#define OE_OPTION_STRING 4 /* any UTF-8 text */

/* One option the engine accepts. Static: valid for the life of the process. */
typedef struct oe_option_desc {
    const char *name;           /* unique within the engine, e.g. "Depth" */
    oe_option_type type;
    const char *default_value;  /* in the same text form set_option takes */
    double min;                 /* OE_OPTION_INT / OE_OPTION_FLOAT only */
    double max;
    const char *const *enum_values; /* OE_OPTION_ENUM only: enum_count strings */
    uint32_t enum_count;
    const char *help;           /* one line, may be NULL */
} oe_option_desc;

/* A position: two disjoint bitboards and the side to move. */
typedef struct oe_position {
    uint64_t black;
    uint64_t white;
    uint32_t side_to_move; /* 0 = Black, 1 = White */
    uint32_t reserved;     /* 0 */
} oe_position;

/* Which limits of oe_limits apply (bit flags); any combination, none = search until stopped. */
#define OE_LIMIT_CLOCK 1u     /* time_left_ms / increment_ms */
#define OE_LIMIT_MOVE_TIME 2u /* move_time_ms */
#define OE_LIMIT_DEPTH 4u     /* depth */
#define OE_LIMIT_NODES 8u     /* nodes */

/* The limits of one search. The host's clock is authoritative: when the budget is spent the
 * host raises the stop flag, and a move later than the budget plus the host's margin loses. */
typedef struct oe_limits {
    uint32_t struct_size;   /* sizeof(oe_limits) as the host knows it */
    uint32_t flags;         /* OE_LIMIT_* */
    int64_t time_left_ms[2]; /* remaining clock of [Black, White] */
    int64_t increment_ms[2]; /* increment per move of [Black, White] */
    int64_t move_time_ms;    /* fixed time for this move */
    int32_t depth;           /* plies; an engine whose exact solver reaches the end may go further */
    int32_t reserved;        /* 0 */
    uint64_t nodes;          /* node budget */
} oe_limits;

/* What the engine reports while it searches, and at the end. */
typedef struct oe_search_info {
    uint32_t struct_size;  /* sizeof(oe_search_info) as the engine knows it */
    int32_t depth;         /* completed nominal depth; 0 when unknown (not recorded) */
    int32_t selectivity;   /* selectivity in percent (100 = no selective pruning) */
    int32_t pv_length;     /* moves used in pv */
    double score;          /* discs, side to move's view */
    uint64_t nodes;        /* nodes searched so far in this search */
    uint64_t time_ms;      /* time since the search started */
    uint8_t pv[OE_MAX_PV]; /* principal variation, moves as above */
} oe_search_info;

/* The result of a search, filled in by the engine. */
typedef struct oe_search_result {
    uint32_t struct_size;  /* set by the host: sizeof(oe_search_result) as the host knows it */
    int32_t move;          /* 0..63, or OE_MOVE_PASS when (and only when) no move is legal */
    oe_search_info info;   /* the final search info (its own struct_size set by the engine) */
} oe_search_result;

/* The host's side of an instance, given to `create`. Owned by the host, valid until the
 * instance is destroyed. */
typedef struct oe_host {
    uint32_t struct_size; /* sizeof(oe_host) as the host knows it */
    void *host_data;      /* passed back to the callbacks */
    /* Live search info. Callable from any thread while `search` runs; it copies the report
     * and returns at once (it never blocks on I/O). May be NULL: then report nothing. */
    void (*info)(void *host_data, const oe_search_info *info);
} oe_host;

/* A game: where it started and the moves played since (ABI 1.1). Playing `moves` from `start`
 * gives the position to search; passes appear explicitly as OE_MOVE_PASS. The start is the
 * standard start position or the position an opening set begins from (XOT openings start from
 * the standard position, their moves are part of `moves`). */
typedef struct oe_game {
    uint32_t struct_size;   /* sizeof(oe_game) as the host knows it */
    uint32_t move_count;    /* entries in `moves` */
    oe_position start;
    const int32_t *moves;   /* move_count moves, 0..63 or OE_MOVE_PASS; owned by the host */
} oe_game;

/* An engine instance; opaque to the host. */
typedef struct oe_engine oe_engine;

/* The plugin's function table. Static: valid for the life of the process. */
typedef struct oe_engine_api {
    uint32_t struct_size;  /* sizeof(oe_engine_api) as the plugin knows it */
    uint16_t abi_major;    /* OE_ABI_MAJOR the plugin was built with */
    uint16_t abi_minor;    /* OE_ABI_MINOR the plugin was built with */

    const char *name;      /* engine name, e.g. "Greedy" */
    const char *version;   /* engine version, e.g. "1.0.0" */
    const char *author;

    uint32_t option_count;
    const oe_option_desc *options; /* option_count descriptors */

    /* Create an instance with default options. `host` stays valid until destroy. Returns NULL
     * on failure (there is then no instance to ask for last_error). */
    oe_engine *(*create)(const oe_host *host);

    /* Destroy an instance. After this the pointer is invalid. */
    void (*destroy)(oe_engine *engine);

    /* Set an option by name, the value as text in the descriptor's form. Not during a search. */
    oe_status (*set_option)(oe_engine *engine, const char *name, const char *value);

    /* A new game starts: clear game-specific state (hash tables, learning). A status other
     * than OE_OK (with last_error set) says the engine cannot play a game now: the host calls
     * it once before a tournament's first game, so that such an engine stops the run before
     * any game, and a later failure forfeits that game. */
    oe_status (*new_game)(oe_engine *engine);

    /* Search `position` under `limits` and fill `result`. Blocks until done. The engine polls
     * `stop` (relaxed loads are enough) and returns its best move promptly once it is
     * non-zero. All pointers are owned by the host and valid during the call only.
     * The move must be legal; when no move is legal it must be OE_MOVE_PASS. The position is
     * never a finished game. */
    oe_status (*search)(oe_engine *engine, const oe_position *position,
                        const oe_limits *limits, const atomic_uint *stop,
                        oe_search_result *result);

    /* The message of the last failed call on this instance (UTF-8, never NULL, "" when there
     * is none). Owned by the instance; valid until the next call on it. */
    const char *(*last_error)(const oe_engine *engine);

    /* ---- ABI 1.1 ---- */

    /* As `search`, for the position reached by playing `game->moves` from `game->start`, with
     * the game itself available to the engine. The host guarantees the moves are legal (passes
     * only when forced) and the game is not over. May be NULL: the host then calls `search`. */
    oe_status (*search_game)(oe_engine *engine, const oe_game *game, const oe_limits *limits,
                             const atomic_uint *stop, oe_search_result *result);
} oe_engine_api;

/* The size of an ABI 1.0 table (everything before `search_game`): what a plugin built against
 * the 1.0 header declares in struct_size. */
#define OE_ENGINE_API_SIZE_V1_0 offsetof(oe_engine_api, search_game)

/* The entry point. Returns the plugin's static table; never NULL for a working plugin. */
typedef const oe_engine_api *(*oe_entry_v1)(void);
#define OE_ENTRY_SYMBOL_V1 "othello_engine_v1"

/* What a plugin defines and exports (with default visibility). */
const oe_engine_api *othello_engine_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* OTHELLO_ENGINE_H */
