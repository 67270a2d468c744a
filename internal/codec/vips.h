// libvips for codec: its start-up, decoding (PNG, WebP, CMYK JPEG) straight
// into a caller's RGBA buffer, top to bottom, for decode.go, and encoding
// (PNG, WebP, a transparent image as a JPEG) for encode.go. sr_vips_start
// runs once (decode.go's vipsStart) before any other call.
#ifndef SHOWROOM_VIPS_H
#define SHOWROOM_VIPS_H

#include <stddef.h>

// Formats sr_vips_header and sr_vips_decode load; no other libvips loader
// is ever reached from here.
enum { SR_VIPS_JPEG = 0, SR_VIPS_PNG = 1, SR_VIPS_WEBP = 2 };

// sr_vips_info is an image's header.
typedef struct {
	int width, height;
	// bands and sample_bytes as the file stores them (a 16-bit RGBA PNG:
	// 4 and 2).
	int bands, sample_bytes;
	// orientation is the EXIF orientation, 1 (or 0) when there is none.
	int orientation;
} sr_vips_info;

// sr_vips_header reads the header of the image in data, of format type,
// decoding no pixel. It returns SR_OK or SR_CORRUPT with msg saying why.
int sr_vips_header(const unsigned char *data, size_t len, int type, sr_vips_info *info, char *msg, size_t msg_len);

// sr_vips_decode decodes the w×h image in data into out (w*h*4 bytes) as
// 8-bit sRGB RGBA: an embedded colour profile converted, the EXIF
// orientation NOT applied. Transparency is kept when keep_alpha is set,
// flattened onto white otherwise. It reads top to bottom, never holding
// more of the image than libvips's loader needs, and stops with
// SR_CANCELLED between strips of rows once *cancel is non-zero (read
// atomically; cancel may be NULL). A truncated file is SR_CORRUPT; warnings
// that leave the image whole are not. srgb_profile is the path of the sRGB
// profile to convert to.
int sr_vips_decode(const unsigned char *data, size_t len, int type, const char *srgb_profile, int keep_alpha,
                   unsigned char *out, int w, int h, const int *cancel, char *msg, size_t msg_len);

// sr_vips_start starts libvips for the process: one thread per operation
// (requests run in parallel at the worker level), no operation cache (every
// image is new), warnings dropped. SR_OK, or SR_CORRUPT with msg saying why.
int sr_vips_start(char *msg, size_t msg_len);

// sr_vips_encode writes the w×h RGBA pixels at pix (w*4 bytes a row) as a
// file of format type, every metadata field stripped: without the alpha
// band unless has_alpha, and flattened onto white for a JPEG when it has
// one. quality is the JPEG's or WebP's (1-100). On SR_OK, *out holds the
// file (g_free it), *out_len its bytes; otherwise msg says why.
int sr_vips_encode(const unsigned char *pix, int w, int h, int has_alpha, int type, int quality, void **out,
                   size_t *out_len, char *msg, size_t msg_len);

#endif
