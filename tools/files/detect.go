package files

import (
	"bytes"
)

// sniffed is what the first bytes of a file say it is.
type sniffed struct {
	image  bool   // one of the image types read returns as an image block
	binary bool   // not text: read refuses it
	mime   string // for images: the MIME type of the block
	name   string // for messages: "PNG image", "ELF executable", "binary data"
}

// signature is a magic-number test: bytes at an offset.
type signature struct {
	offset int
	magic  string
	name   string
	mime   string // set for the images read returns
}

// signatures names the binary formats a coding agent meets most, so the
// refusal can say what the file is. Images with a MIME type are returned as
// image blocks; the rest are refused. Order matters only where one magic is
// a prefix of another (none today).
var signatures = []signature{
	{0, "\x89PNG\r\n\x1a\n", "PNG image", "image/png"},
	{0, "\xff\xd8\xff", "JPEG image", "image/jpeg"},
	{0, "GIF87a", "GIF image", "image/gif"},
	{0, "GIF89a", "GIF image", "image/gif"},
	{8, "WEBP", "WebP image", "image/webp"}, // after "RIFF" and a length; checked below
	{0, "BM", "BMP image", ""},
	{0, "II*\x00", "TIFF image", ""},
	{0, "MM\x00*", "TIFF image", ""},
	{0, "\x00\x00\x01\x00", "ICO image", ""},
	{0, "%PDF-", "PDF document", ""},
	{0, "PK\x03\x04", "ZIP archive (or a jar, docx, xlsx)", ""},
	{0, "\x1f\x8b", "gzip archive", ""},
	{0, "BZh", "bzip2 archive", ""},
	{0, "\xfd7zXZ\x00", "xz archive", ""},
	{0, "7z\xbc\xaf\x27\x1c", "7-Zip archive", ""},
	{0, "\x28\xb5\x2f\xfd", "zstd archive", ""},
	{257, "ustar", "tar archive", ""},
	{0, "\x7fELF", "ELF executable", ""},
	{0, "MZ", "Windows executable", ""},
	{0, "\xcf\xfa\xed\xfe", "Mach-O executable", ""},
	{0, "\xce\xfa\xed\xfe", "Mach-O executable", ""},
	{0, "\xca\xfe\xba\xbe", "Java class or Mach-O universal binary", ""},
	{0, "\x00asm", "WebAssembly module", ""},
	{0, "SQLite format 3\x00", "SQLite database", ""},
	{0, "OggS", "Ogg media", ""},
	{0, "ID3", "MP3 audio", ""},
	{0, "fLaC", "FLAC audio", ""},
	{4, "ftyp", "MP4/QuickTime media", ""},
	{0, "\x1aE\xdf\xa3", "Matroska/WebM media", ""},
	{0, "wOFF", "WOFF font", ""},
	{0, "wOF2", "WOFF2 font", ""},
}

// sniff classifies a file by its first bytes (up to sniffBytes). Text is
// anything without a NUL byte in that span and without a known binary
// magic; that is git's rule, and it holds for UTF-8, Latin-1 and the like.
func sniff(head []byte) sniffed {
	for _, s := range signatures {
		if s.offset+len(s.magic) > len(head) || string(head[s.offset:s.offset+len(s.magic)]) != s.magic {
			continue
		}
		if s.magic == "WEBP" && string(head[:4]) != "RIFF" {
			continue
		}
		if s.magic == "MZ" || s.magic == "BM" || s.magic == "ID3" || s.magic == "BZh" {
			// Short magics that also begin ordinary text ("MZ", "BM"):
			// trust them only when the file is binary by the NUL rule.
			if bytes.IndexByte(head, 0) < 0 {
				continue
			}
		}
		return sniffed{image: s.mime != "", binary: true, mime: s.mime, name: s.name}
	}
	if bytes.IndexByte(head, 0) >= 0 {
		if utf16Text(head) {
			return sniffed{binary: true, name: "UTF-16 text (convert it to UTF-8 to read it here, e.g. with iconv)"}
		}
		return sniffed{binary: true, name: "binary data"}
	}
	return sniffed{name: "text"}
}

// utf16Text recognises the byte-order marks of UTF-16, whose ASCII text is
// full of NUL bytes, so the refusal can suggest converting it.
func utf16Text(head []byte) bool {
	return bytes.HasPrefix(head, []byte{0xff, 0xfe}) || bytes.HasPrefix(head, []byte{0xfe, 0xff})
}
