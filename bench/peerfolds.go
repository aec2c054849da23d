package main

import "math/bits"

// The fold rule of the MIL peers (../shared/peers/mil/baselines.py), so
// that `bench mil -fold-rule peer` and the peers' run script evaluate on
// identical splits: for repeat r (0 to R-1), Python's random.Random(r);
// for class 0 then class 1, shuffle that class's bag indices (in the
// data's bag order) with random.shuffle and deal them round-robin to the
// folds, restarting at fold 0 for each class.

// pyRandom is CPython's random.Random: the MT19937 generator seeded as
// random.seed(int) seeds it (init_by_array on the seed's 32-bit words),
// with getrandbits, _randbelow and shuffle as CPython implements them.
type pyRandom struct {
	mt  [624]uint32
	idx int
}

// newPyRandom returns the generator of random.Random(seed).
func newPyRandom(seed uint64) *pyRandom {
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < len(r.mt); i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = len(r.mt)
}

// initByArray is MT19937's init_by_array, as CPython seeds with it.
func (r *pyRandom) initByArray(key []uint32) {
	const n = len(r.mt)
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(n, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// uint32 is genrand_uint32.
func (r *pyRandom) uint32() uint32 {
	const n, m = 624, 397
	if r.idx >= n {
		for k := range n {
			y := r.mt[k]&0x80000000 | r.mt[(k+1)%n]&0x7fffffff
			v := r.mt[(k+m)%n] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[k] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// randBelow is CPython's _randbelow_with_getrandbits for 0 < n < 2^32:
// getrandbits(n.bit_length()) until it is below n.
func (r *pyRandom) randBelow(n int) int {
	k := bits.Len(uint(n))
	for {
		if v := int(r.uint32() >> (32 - k)); v < n {
			return v
		}
	}
}

// shuffle is random.shuffle.
func (r *pyRandom) shuffle(x []int) {
	for i := len(x) - 1; i > 0; i-- {
		j := r.randBelow(i + 1)
		x[i], x[j] = x[j], x[i]
	}
}

// peerFolds returns the fold (0 to k-1) of each bag with the given 0/1
// labels under the peers' rule for repeat seed (see the top of this
// file).
func peerFolds(labels []float64, k int, seed uint64) []int {
	r := newPyRandom(seed)
	fold := make([]int, len(labels))
	for _, c := range []float64{0, 1} {
		var idx []int
		for i, y := range labels {
			if y == c {
				idx = append(idx, i)
			}
		}
		r.shuffle(idx)
		for j, i := range idx {
			fold[i] = j % k
		}
	}
	return fold
}

// peerFoldsOf returns the fold assignments of repeats 0 to repeats-1
// under the peers' rule (see mil.Protocol.RunFolds).
func peerFoldsOf(labels []float64, k, repeats int) [][]int {
	folds := make([][]int, repeats)
	for rep := range folds {
		folds[rep] = peerFolds(labels, k, uint64(rep))
	}
	return folds
}
