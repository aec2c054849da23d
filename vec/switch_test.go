package vec

import "testing"

// TestSetImpl checks the test switch that internal/vectest reaches by
// linkname: it selects every implementation this CPU has, refuses others
// without changing anything, and its restore function undoes it.
func TestSetImpl(t *testing.T) {
	start := Impl()
	for _, k := range Implementations() {
		restore, ok := setImpl(k.Name())
		if !ok || Impl() != k.Name() || active != k {
			t.Fatalf("setImpl(%q) = %v: Impl() = %q", k.Name(), ok, Impl())
		}
		restore()
		if Impl() != start {
			t.Fatalf("after restoring from %q: Impl() = %q, want %q", k.Name(), Impl(), start)
		}
	}
	for _, name := range []string{"bogus", "", "NEON"} {
		restore, ok := setImpl(name)
		if ok || Impl() != start {
			t.Fatalf("setImpl(%q) = %v, Impl() = %q", name, ok, Impl())
		}
		restore()
		if Impl() != start {
			t.Fatalf("restore after a refused setImpl(%q): Impl() = %q", name, Impl())
		}
	}
}
