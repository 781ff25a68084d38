#!/usr/bin/env python3
"""An Othello engine in plain Python 3 (standard library only) that speaks GTP on stdin/stdout.

The arena plays it through its `external` plugin:

    harness run --engine "name=py,plugin=external,Command=python3 /abs/path/engine.py,Protocol=gtp" ...

Search: alpha-beta (negamax, the last iteration's best move first) with iterative deepening,
stopped by a deadline taken from the clock GTP gives it (`time_settings`, `time_left`); an
iteration as deep as the empties solves the position exactly. Evaluation: a hand-weighted sum of the features the student papers use:
corners, mobility, stability, frontier and parity (plus the squares next to empty corners).

Boards are two 64-bit integers (the discs of the side to move and of the other side); bit 0 is
A1, bit 7 is H1, bit 63 is H8. GTP names squares as a letter (column) and a digit (row).
"""

import sys
import time

FULL = (1 << 64) - 1
NOT_A = 0xFEFEFEFEFEFEFEFE  # every square but column A
NOT_H = 0x7F7F7F7F7F7F7F7F  # every square but column H

# A direction: how far a bit moves, and the mask that keeps it from wrapping around a row.
DIRECTIONS = (
    (1, NOT_A),    # east
    (-1, NOT_H),   # west
    (8, FULL),     # north (towards row 8)
    (-8, FULL),    # south
    (9, NOT_A),    # north-east
    (7, NOT_H),    # north-west
    (-7, NOT_A),   # south-east
    (-9, NOT_H),   # south-west
)

CORNERS = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)
# Each corner with the X-square diagonal to it and the two C-squares beside it.
CORNER_NEIGHBOURS = (
    (1 << 0, (1 << 9), (1 << 1) | (1 << 8)),
    (1 << 7, (1 << 14), (1 << 6) | (1 << 15)),
    (1 << 56, (1 << 49), (1 << 57) | (1 << 48)),
    (1 << 63, (1 << 54), (1 << 62) | (1 << 55)),
)

# The evaluation's weights (per unit of each feature, from the side to move's view).
W_CORNER = 30
W_X_SQUARE = -12
W_C_SQUARE = -4
W_MOBILITY = 5
W_STABILITY = 8
W_FRONTIER = -3
W_PARITY = 4
# A finished game's value per disc of difference: above any evaluation.
WIN = 10000

INFINITY = 1 << 30


def shift(bits, amount):
    """`bits` moved by `amount` squares (positive: towards H8), cut to 64 bits."""
    return (bits << amount) & FULL if amount > 0 else bits >> -amount


def legal_moves(me, you):
    """The squares where the side owning `me` may play, as a bit set."""
    empty = ~(me | you) & FULL
    moves = 0
    for amount, mask in DIRECTIONS:
        run = shift(me, amount) & mask & you
        for _ in range(5):
            run |= shift(run, amount) & mask & you
        moves |= shift(run, amount) & mask & empty
    return moves


def flips(me, you, square):
    """The discs of `you` turned by a disc of `me` on `square` (a bit)."""
    turned = 0
    for amount, mask in DIRECTIONS:
        line = 0
        bit = shift(square, amount) & mask
        while bit & you:
            line |= bit
            bit = shift(bit, amount) & mask
        if bit & me:
            turned |= line
    return turned


def popcount(bits):
    return bin(bits).count("1")


def bits_of(bits):
    """Each set bit of `bits`, lowest first."""
    while bits:
        low = bits & -bits
        yield low
        bits ^= low


# For each of the four lines through a square (horizontal, vertical, two diagonals): its two
# directions with their wrap masks, and the border squares where the line leaves the board.
BORDER = 0xFF818181818181FF
LINES = (
    ((1, NOT_A), (-1, NOT_H), 0x8181818181818181),
    ((8, FULL), (-8, FULL), 0xFF000000000000FF),
    ((9, NOT_A), (-9, NOT_H), BORDER),
    ((7, NOT_H), (-7, NOT_A), BORDER),
)


def stable_discs(me):
    """A subset of `me`'s discs that can never be turned.

    A disc is stable when, on each of the four lines through it, one neighbour is off the board
    or is itself a stable disc of its colour: no move can then bracket it on that line. Grown
    from the corners (off the board on every line) until nothing changes.
    """
    stable = 0
    while True:
        grown = me
        for (a, mask_a), (b, mask_b), border in LINES:
            grown &= border | (shift(stable, a) & mask_a) | (shift(stable, b) & mask_b)
        if grown == stable:
            return stable
        stable = grown


def frontier(me, you):
    """`me`'s discs next to an empty square."""
    empty = ~(me | you) & FULL
    near = 0
    for amount, mask in DIRECTIONS:
        near |= shift(empty, amount) & mask
    return me & near


def evaluate(me, you):
    """The position's value for the side owning `me` (to move)."""
    score = W_CORNER * (popcount(me & CORNERS) - popcount(you & CORNERS))
    empty = ~(me | you) & FULL
    for corner, x_square, c_squares in CORNER_NEIGHBOURS:
        if corner & empty:
            score += W_X_SQUARE * (popcount(me & x_square) - popcount(you & x_square))
            score += W_C_SQUARE * (popcount(me & c_squares) - popcount(you & c_squares))
    score += W_MOBILITY * (popcount(legal_moves(me, you)) - popcount(legal_moves(you, me)))
    score += W_STABILITY * (popcount(stable_discs(me)) - popcount(stable_discs(you)))
    score += W_FRONTIER * (popcount(frontier(me, you)) - popcount(frontier(you, me)))
    # Parity: with an odd number of empties the side to move should get the last move.
    score += W_PARITY if popcount(empty) % 2 == 1 else -W_PARITY
    return score


class OutOfTime(Exception):
    """The deadline passed during a search."""


class Searcher:
    """Alpha-beta under a deadline; `best` is the move of the deepest finished iteration."""

    def __init__(self, deadline):
        self.deadline = deadline
        self.nodes = 0

    def check_time(self):
        self.nodes += 1
        if self.nodes & 63 == 0 and time.monotonic() > self.deadline:
            raise OutOfTime()

    def negamax(self, me, you, depth, alpha, beta, passed=False):
        self.check_time()
        moves = legal_moves(me, you)
        if not moves:
            if passed or not legal_moves(you, me):
                diff = popcount(me) - popcount(you)
                return WIN * diff if diff else 0
            return -self.negamax(you, me, depth, -beta, -alpha, True)
        if depth <= 0:
            return evaluate(me, you)
        best = -INFINITY
        for square in ordered(moves):
            turned = flips(me, you, square)
            value = -self.negamax(you ^ turned, me | turned | square, depth - 1, -beta, -alpha)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    def root(self, me, you, depth, first):
        """The best move at `depth` and its value, trying `first` first."""
        moves = list(ordered(legal_moves(me, you)))
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        alpha, best_move = -INFINITY, moves[0]
        for square in moves:
            turned = flips(me, you, square)
            value = -self.negamax(you ^ turned, me | turned | square, depth - 1, -INFINITY, -alpha)
            if value > alpha:
                alpha, best_move = value, square
        return best_move, alpha


# Move ordering: corners first, then other squares, X-squares last.
ORDER_CLASSES = (
    CORNERS,
    FULL & ~CORNERS & ~((1 << 9) | (1 << 14) | (1 << 49) | (1 << 54)),
    (1 << 9) | (1 << 14) | (1 << 49) | (1 << 54),
)


def ordered(moves):
    for mask in ORDER_CLASSES:
        yield from bits_of(moves & mask)


def choose(me, you, seconds):
    """The move to play with `seconds` to think; `None` for a pass."""
    moves = legal_moves(me, you)
    if not moves:
        return None
    if popcount(moves) == 1:
        return moves
    start = time.monotonic()
    searcher = Searcher(start + seconds)
    empties = popcount(~(me | you) & FULL)
    best = next(ordered(moves))
    depth = 1
    try:
        while True:
            best, _ = searcher.root(me, you, depth, best)
            if depth >= empties:
                break
            # Start another iteration only if it likely finishes in time (each costs a few
            # times the last).
            if time.monotonic() - start > seconds / 4:
                break
            depth += 1
    except OutOfTime:
        pass
    return best


def square_name(bit):
    index = bit.bit_length() - 1
    return "abcdefgh"[index % 8] + str(index // 8 + 1)


def parse_square(word):
    word = word.strip().lower()
    if word == "pass":
        return None
    column, row = "abcdefgh".index(word[0]), int(word[1:]) - 1
    if not (0 <= row < 8):
        raise ValueError(word)
    return 1 << (row * 8 + column)


class Game:
    """The board as GTP commands leave it, and the clock GTP gives."""

    def __init__(self):
        self.clear()
        self.main_time = None
        self.time_left = {}
        self.history = []

    def clear(self):
        # The standard start: d5 and e4 black, d4 and e5 white; Black moves first.
        self.black = (1 << 35) | (1 << 28)
        self.white = (1 << 27) | (1 << 36)
        self.history = []

    def discs(self, color):
        return (self.black, self.white) if color == "b" else (self.white, self.black)

    def play(self, color, square):
        me, you = self.discs(color)
        if square is not None:
            if not legal_moves(me, you) & square:
                raise ValueError("illegal move")
            turned = flips(me, you, square)
            me, you = me | turned | square, you ^ turned
        elif legal_moves(me, you):
            raise ValueError("a pass while a move is legal")
        self.history.append((self.black, self.white))
        self.black, self.white = (me, you) if color == "b" else (you, me)

    def undo(self):
        if not self.history:
            raise ValueError("nothing to undo")
        self.black, self.white = self.history.pop()

    def think_time(self, color):
        """Seconds for this move: a share of the time left, or the fixed move time."""
        empties = popcount(~(self.black | self.white) & FULL)
        left = self.time_left.get(color)
        if left is None:
            left = self.main_time if self.main_time else 1.0
            if self.byo_yomi:
                return max(0.01, self.byo_yomi * 0.5)
        # About half of our remaining moves share the clock, with a reserve for the last ones.
        moves_to_go = max(4, (empties + 1) // 2)
        return max(0.005, min(left * 0.5, left / (moves_to_go + 2)))

    byo_yomi = 0.0


def color_of(word):
    word = word.lower()
    if word in ("b", "black"):
        return "b"
    if word in ("w", "white"):
        return "w"
    raise ValueError(f"not a colour: {word}")


COMMANDS = (
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "komi", "play", "genmove", "undo", "time_settings",
    "time_left", "showboard",
)


def answer(game, command, args):
    """The text of the answer to one command; raises ValueError for a `?` answer."""
    if command == "protocol_version":
        return "2"
    if command == "name":
        return "python-alphabeta"
    if command == "version":
        return "1.0"
    if command == "known_command":
        return "true" if args and args[0] in COMMANDS else "false"
    if command == "list_commands":
        return "\n".join(COMMANDS)
    if command == "boardsize":
        if args != ["8"]:
            raise ValueError("unacceptable size")
        return ""
    if command == "clear_board":
        game.clear()
        return ""
    if command == "komi":
        return ""
    if command == "play":
        game.play(color_of(args[0]), parse_square(args[1]))
        return ""
    if command == "genmove":
        color = color_of(args[0])
        me, you = game.discs(color)
        square = choose(me, you, game.think_time(color))
        game.play(color, square)
        return "pass" if square is None else square_name(square)
    if command == "undo":
        game.undo()
        return ""
    if command == "time_settings":
        main, byo_yomi, stones = (float(a) for a in args[:3])
        game.main_time = main
        game.byo_yomi = byo_yomi / stones if stones else 0.0
        game.time_left = {}
        return ""
    if command == "time_left":
        game.time_left[color_of(args[0])] = float(args[1])
        return ""
    if command == "quit":
        return ""
    if command == "showboard":
        rows = []
        for row in range(7, -1, -1):
            cells = ""
            for column in range(8):
                bit = 1 << (row * 8 + column)
                cells += "X" if game.black & bit else ("O" if game.white & bit else ".")
            rows.append(f"{row + 1} {cells}")
        return "\n" + "\n".join(rows) + "\n  abcdefgh"
    raise ValueError("unknown command")


def main():
    game = Game()
    for line in sys.stdin:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        ident = ""
        if words[0].isdigit():
            ident, words = words[0], words[1:]
        if not words:
            continue
        command, args = words[0].lower(), words[1:]
        try:
            text = answer(game, command, args)
            reply = f"={ident} {text}".rstrip()
        except (ValueError, IndexError) as error:
            reply = f"?{ident} {error}"
        sys.stdout.write(reply + "\n\n")
        sys.stdout.flush()
        if command == "quit":
            break


if __name__ == "__main__":
    main()
