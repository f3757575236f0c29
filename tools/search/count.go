package search

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Class is one row of Table 1: a class of hash functions from n address
// bits to m bank bits and how many functions it holds.
type Class struct {
	Name    string `json:"class"`
	Formula string `json:"size"`
	// Exact is the count in decimal, empty when it has more than 40 digits.
	Exact string `json:"exact,omitempty"`
	// Approx is the count to two significant digits, e.g. "1.2e21".
	Approx string `json:"approx"`
}

// log10of2 to 60 digits: enough to place the mantissa of 2^(m·2^n) for
// every n up to 64.
const log10of2 = "0.301029995663981195213738894724493026768189881462108541310430"

// Table1 computes the class sizes of Table 1 for n and m from their
// formulas (Eq. 9 for the unique XOR functions, exactly, as a product of
// Gaussian-binomial factors).
func Table1(n, m int) ([]Class, error) {
	if err := CheckSizes(n, m); err != nil {
		return nil, err
	}
	row := func(name, formula string, v *big.Int) Class {
		c := Class{Name: name, Formula: formula, Approx: approx(v)}
		if s := v.String(); len(s) <= 40 {
			c.Exact = s
		}
		return c
	}
	one := big.NewInt(1)
	pow2 := func(e int) *big.Int { return new(big.Int).Lsh(one, uint(e)) }

	// (2^m)^(2^n) = 2^(m·2^n) has up to ~10^20 digits: only its logarithm.
	l10, _, _ := big.ParseFloat(log10of2, 10, 256, big.ToNearestEven)
	e := new(big.Float).SetPrec(256).SetInt(new(big.Int).Mul(big.NewInt(int64(m)), pow2(n)))
	l10.Mul(l10, e)
	all := Class{Name: "All functions", Formula: "(2^m)^(2^n)", Approx: approxLog10(l10)}

	// Eq. 9: N(n, m) = Π_{i=1..m} (2^(n−i+1) − 1) / (2^(m−i+1) − 1).
	num, den := big.NewInt(1), big.NewInt(1)
	for i := 1; i <= m; i++ {
		num.Mul(num, new(big.Int).Sub(pow2(n-i+1), one))
		den.Mul(den, new(big.Int).Sub(pow2(m-i+1), one))
	}
	unique := new(big.Int).Quo(num, den)

	bvx := new(big.Int).Mul(big.NewInt(int64((n-m+1)*n)), pow2(m))
	return []Class{
		all,
		row("XOR-based functions", "2^(nm)", pow2(n*m)),
		row("Unique XOR-based functions", "N(n, m), Eq. 9", unique),
		row("Bit-vector functions", "n - m + 1", big.NewInt(int64(n-m+1))),
		row("Bit-vector XOR functions", "(n - m + 1) * n * 2^m", bvx),
		row("Bitwise permutation functions", "C(n, m)", binomialBig(int64(n), int64(m))),
		row("Bitwise XOR functions", "C(n(n+1)/2, m)", binomialBig(int64(n*(n+1)/2), int64(m))),
	}, nil
}

// approx prints v to two significant digits: 9.7e7, 4.5e3, 10.
func approx(v *big.Int) string {
	s := v.String()
	if len(s) <= 2 {
		return s
	}
	// Round the leading three digits to two, carrying into the exponent.
	lead := int(s[0]-'0')*100 + int(s[1]-'0')*10 + int(s[2]-'0')
	exp := len(s) - 1
	r := (lead + 5) / 10 // 10..100
	if r == 100 {
		r = 10
		exp++
	}
	return fmt.Sprintf("%d.%de%d", r/10, r%10, exp)
}

// approxLog10 prints 10^l (l ≥ 0) to two significant digits. The
// exponent is l's integer part as a big integer: for n = 64 it passes
// int64 (m·2^64·log10(2) is about 5.6e18·m).
func approxLog10(l *big.Float) string {
	ip, _ := l.Int(nil)
	frac := new(big.Float).Sub(l, new(big.Float).SetInt(ip))
	fv, _ := frac.Float64()
	mant := math.Pow(10, fv)
	r := int(mant*10 + 0.5)
	if r >= 100 {
		r = 10
		ip.Add(ip, big.NewInt(1))
	}
	return fmt.Sprintf("%d.%de%s", r/10, r%10, ip.String())
}

// binomial is C(n, k), or -1 when it exceeds int64.
func binomial(n, k int64) int64 {
	if k < 0 || k > n {
		return 0
	}
	b := binomialBig(n, k)
	if !b.IsInt64() {
		return -1
	}
	return b.Int64()
}

func binomialBig(n, k int64) *big.Int {
	if k < 0 || k > n {
		return big.NewInt(0)
	}
	return new(big.Int).Binomial(n, k)
}

// FormatTable1 renders the classes as an aligned text table.
func FormatTable1(n, m int, classes []Class) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hash functions from n = %d address bits to m = %d bank bits\n", n, m)
	fmt.Fprintf(&b, "%-30s %-24s %s\n", "class", "size", "count")
	for _, c := range classes {
		count := c.Approx
		if c.Exact != "" && c.Exact != c.Approx {
			if len(c.Exact) <= 6 {
				count = c.Exact
			} else {
				count = c.Approx + " (" + c.Exact + ")"
			}
		}
		fmt.Fprintf(&b, "%-30s %-24s %s\n", c.Name, c.Formula, count)
	}
	return b.String()
}
