# The soak's random numbers: xorshift32 in shell arithmetic, so that one
# seed gives the same choices with any busybox and no external tool.  Each
# process draws from its own stream (rng_stream K), derived from $SEED: the
# choices of one process do not depend on when the others ran.
# shellcheck shell=sh

# rng_stream K: start stream K (a small number) of $SEED in this process.
rng_stream() {
	RNG=$(((SEED ^ ($1 * 2654435761)) & 4294967295))
	[ "$RNG" != 0 ] || RNG=1
	# The first draws of nearby seeds are alike: skip them.
	rand 2 && rand 2 && rand 2 && rand 2
}

# rand N: the next number of the stream in 0..N-1, in $R (not printed: a
# $(...) would draw in a subshell and lose the stream's state).
rand() {
	RNG=$(((RNG ^ (RNG << 13)) & 4294967295))
	RNG=$((RNG ^ (RNG >> 17)))
	RNG=$(((RNG ^ (RNG << 5)) & 4294967295))
	R=$((RNG % $1))
}

# pick WORD...: one of the words, in $R.
pick() {
	rand $#
	shift "$R"
	R=$1
}
