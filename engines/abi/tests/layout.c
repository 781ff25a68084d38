/* Prints `name value` lines for the sizes and offsets of the header's types, which
   tests/layout.rs compares with the Rust mirror's. */
#include "othello_engine.h"
#include <stdio.h>
#define S(t) printf(#t " %zu\n", sizeof(t));
#define O(t, f) printf(#t "." #f " %zu\n", offsetof(t, f));
int main(void) {
    S(oe_option_desc) O(oe_option_desc, type) O(oe_option_desc, min) O(oe_option_desc, enum_count) O(oe_option_desc, help)
    S(oe_position) O(oe_position, side_to_move)
    S(oe_limits) O(oe_limits, time_left_ms) O(oe_limits, increment_ms) O(oe_limits, move_time_ms) O(oe_limits, depth) O(oe_limits, nodes)
    S(oe_search_info) O(oe_search_info, score) O(oe_search_info, nodes) O(oe_search_info, time_ms) O(oe_search_info, pv)
    S(oe_search_result) O(oe_search_result, move) O(oe_search_result, info)
    S(oe_host) O(oe_host, host_data) O(oe_host, info)
    S(oe_engine_api) O(oe_engine_api, abi_minor) O(oe_engine_api, name) O(oe_engine_api, option_count) O(oe_engine_api, options)
    O(oe_engine_api, create) O(oe_engine_api, search) O(oe_engine_api, last_error)
    O(oe_engine_api, search_game)
    printf("OE_ENGINE_API_SIZE_V1_0 %zu\n", (size_t)OE_ENGINE_API_SIZE_V1_0);
    S(oe_game) O(oe_game, move_count) O(oe_game, start) O(oe_game, moves)
    S(atomic_uint)
    return 0;
}
