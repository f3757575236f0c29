package accelsim

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/ulikunitz/xz/lzma"
)

// xzCheckSize is the size of a block's check by the stream's check type
// (the .xz file format, 2.1.1.2).
var xzCheckSize = [16]int{0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}

// scanXz walks the structure of an .xz file (every stream, block header
// and LZMA2 chunk header) without decompressing it, before the decoder
// sees it: the decoder allocates whatever dictionary a block declares, in
// any stream, so every block's dictionary is checked against MaxXzDict
// here. It returns the bytes of text the chunks declare; it stops with an
// error once they pass limit, and quietly once they pass stopAfter (after
// checking the header of the block that starts there). Errors name the
// stream and block.
//
// The decoder also allocates (and clears) each block's dictionary anew,
// so a file of many small blocks that each declare a large dictionary
// costs far more than its text: 4,591 blocks of 48 bytes declaring 64 MiB
// each took 112 s to read. Real files have one block, or blocks of three
// times their dictionary (xz -T); so the blocks' dictionaries together
// may pass the file's text by maxXzDictSlack at most.
func scanXz(r *bufio.Reader, limit, stopAfter int64) (int64, error) {
	var total, dicts int64 // text declared, dictionaries declared
	blocks := 0
	buf := make([]byte, 1024)
	read := func(n int) ([]byte, error) {
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		return buf[:n], nil
	}
	skip := func(n int) error {
		if _, err := r.Discard(n); err != nil {
			return io.ErrUnexpectedEOF
		}
		return nil
	}
	for stream := 1; ; stream++ {
		// Stream padding (groups of four zero bytes), then a header.
		for {
			head, err := r.Peek(4)
			if len(head) == 0 && err == io.EOF && stream > 1 {
				return total, nil
			}
			if len(head) < 4 || string(head) != "\x00\x00\x00\x00" {
				break
			}
			_, _ = r.Discard(4)
		}
		h, err := read(12)
		if err != nil || string(h[:6]) != "\xfd7zXZ\x00" {
			if stream == 1 {
				return total, errors.New("not an xz file")
			}
			return total, fmt.Errorf("xz stream %d: no stream header", stream)
		}
		check := xzCheckSize[h[7]&0x0f]
		for block := 1; ; block++ {
			where := func(format string, args ...any) error {
				return fmt.Errorf("xz stream %d, block %d: %s", stream, block, fmt.Sprintf(format, args...))
			}
			b0, err := r.ReadByte()
			if err != nil {
				return total, fmt.Errorf("xz stream %d: truncated", stream)
			}
			if b0 == 0 { // the index, then the stream footer
				if err := skipXzIndex(r); err != nil {
					return total, fmt.Errorf("xz stream %d: index: %v", stream, err)
				}
				break
			}
			if total > stopAfter {
				return total, nil
			}
			size := (int(b0) + 1) * 4
			bh, err := read(size - 1)
			if err != nil {
				return total, where("truncated block header")
			}
			dict, err := checkXzBlockHeader(bh)
			if err != nil {
				return total, where("%v", err)
			}
			blocks++
			dicts += dict
			// LZMA2 chunks up to the end marker: control byte, sizes,
			// optional properties, data.
			n := 0
			for {
				c, err := r.ReadByte()
				if err != nil {
					return total, where("truncated LZMA2 data")
				}
				n++
				var unpacked, packed int
				switch {
				case c == 0:
				case c == 1 || c == 2:
					s, err := read(2)
					if err != nil {
						return total, where("truncated LZMA2 data")
					}
					n += 2
					unpacked = int(s[0])<<8 | int(s[1]) + 1
					packed = unpacked
				case c >= 0x80:
					hl := 4
					if c >= 0xc0 {
						hl = 5 // properties follow
					}
					s, err := read(hl)
					if err != nil {
						return total, where("truncated LZMA2 data")
					}
					n += hl
					unpacked = int(c&0x1f)<<16 | int(s[0])<<8 | int(s[1]) + 1
					packed = int(s[2])<<8 | int(s[3]) + 1
				default:
					return total, where("bad LZMA2 chunk (control byte 0x%02x)", c)
				}
				if c == 0 {
					break
				}
				total += int64(unpacked)
				if total > limit {
					return total, errTextBudget
				}
				if err := skip(packed); err != nil {
					return total, where("truncated LZMA2 data")
				}
				n += packed
			}
			if err := skip((4-(size+n)%4)%4 + check); err != nil {
				return total, where("truncated block")
			}
			if dicts > total+maxXzDictSlack {
				return total, fmt.Errorf("xz stream %d: %d blocks declare %d MiB of LZMA2 dictionary for %d bytes of text, and the decoder allocates each block's: more than the text and %d MiB; compress it again (xz without --block-size)",
					stream, blocks, dicts>>20, total, maxXzDictSlack>>20)
			}
		}
	}
}

// maxXzDictSlack is how far the dictionaries an .xz file's blocks declare
// may pass its text (scanXz): 16 blocks of the largest dictionary, about
// half a second of clearing memory.
const maxXzDictSlack = 16 * MaxXzDict

// errTextBudget: the chunks declare more text than the limit.
var errTextBudget = errors.New("more text than the limit")

// checkXzBlockHeader refuses a block header (without its first byte) that
// is not one LZMA2 filter with a dictionary of at most MaxXzDict, and
// returns the dictionary's size.
func checkXzBlockHeader(bh []byte) (int64, error) {
	flags := bh[0]
	p := 1
	uvarint := func() (uint64, bool) {
		var v uint64
		for i := 0; i < 9 && p < len(bh); i++ {
			b := bh[p]
			p++
			v |= uint64(b&0x7f) << (7 * i)
			if b&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	for _, present := range []bool{flags&0x40 != 0, flags&0x80 != 0} { // compressed, uncompressed size
		if present {
			if _, ok := uvarint(); !ok {
				return 0, errors.New("bad block header")
			}
		}
	}
	if flags&3 != 0 {
		return 0, errors.New("a filter chain of more than LZMA2, which lsugen does not read")
	}
	id, ok1 := uvarint()
	n, ok2 := uvarint()
	if !ok1 || !ok2 || n != 1 || p >= len(bh) {
		return 0, errors.New("bad block header")
	}
	if id != 0x21 {
		return 0, fmt.Errorf("filter 0x%x, not LZMA2, which lsugen does not read", id)
	}
	dc, err := lzma.DecodeDictCap(bh[p])
	if err != nil {
		return 0, err
	}
	if dc > MaxXzDict {
		return 0, fmt.Errorf("LZMA2 dictionary of %d bytes, more than %d MiB", dc, MaxXzDict>>20)
	}
	return dc, nil
}

// skipXzIndex skips an index (its indicator byte read) and the stream
// footer after it.
func skipXzIndex(r *bufio.Reader) error {
	n := 1
	uvarint := func() (uint64, error) {
		var v uint64
		for i := 0; i < 9; i++ {
			b, err := r.ReadByte()
			if err != nil {
				return 0, io.ErrUnexpectedEOF
			}
			n++
			v |= uint64(b&0x7f) << (7 * i)
			if b&0x80 == 0 {
				return v, nil
			}
		}
		return 0, errors.New("bad number")
	}
	records, err := uvarint()
	if err != nil {
		return err
	}
	for i := uint64(0); i < 2*records; i++ {
		if _, err := uvarint(); err != nil {
			return err
		}
	}
	if _, err := r.Discard((4-n%4)%4 + 4 + 12); err != nil { // padding, CRC32, footer
		return io.ErrUnexpectedEOF
	}
	return nil
}
