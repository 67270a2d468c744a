// JPEG decoding with libjpeg-turbo straight into a caller's RGBA buffer,
// and colour-profile conversion to sRGB with Little CMS, for decode.go.
#ifndef SHOWROOM_JPEG_H
#define SHOWROOM_JPEG_H

#include <stddef.h>

// Results of sr_jpeg_decode.
enum {
	SR_OK = 0,
	// The file is not decodable here (CMYK or YCCK, a size that differs
	// from the header libvips read): use libvips.
	SR_UNSUPPORTED = 1,
	// The data is broken: libjpeg failed, or warned of corrupt or
	// truncated data.
	SR_CORRUPT = 2,
	// The file needs more memory than allowed.
	SR_TOO_LARGE = 3,
	// The caller's cancel flag was set.
	SR_CANCELLED = 4,
	// The file has more scans than allowed.
	SR_TOO_MANY_SCANS = 5,
};

// sr_jpeg_decode decodes the w×h JPEG in data into out (w*h*4 bytes, RGBA
// with alpha 255). It stops (SR_TOO_MANY_SCANS) at scan max_scans+1; libjpeg's
// whole-image buffers may take max_memory bytes (0: no limit), or
// SR_TOO_LARGE; it stops (SR_CANCELLED) within an iMCU row once *cancel
// is non-zero, read atomically (cancel may be NULL). An embedded ICC
// profile is returned in *icc (malloc'd; the caller frees it) and
// *icc_len; *icc is NULL when there is none. On failure msg (msg_len bytes)
// says why.
int sr_jpeg_decode(const unsigned char *data, size_t len, unsigned char *out, int w, int h, int max_scans,
                   long max_memory, const int *cancel, unsigned char **icc, unsigned int *icc_len, char *msg,
                   size_t msg_len);

// sr_jpeg_encode writes the w×h RGBA pixels in pix (stride bytes a row,
// alpha ignored) as a baseline JPEG at quality, with optimised Huffman
// tables and no metadata, chroma subsampled 2×2 below quality 90 and kept
// whole from 90 (as libvips's jpegsave by default). *out is malloc'd (the
// caller frees it), *out_len bytes long. On failure msg says why.
int sr_jpeg_encode(const unsigned char *pix, int w, int h, int stride, int quality, unsigned char **out,
                   unsigned long *out_len, char *msg, size_t msg_len);

// sr_icc_to_srgb returns a transform from the RGB profile icc to sRGB for
// RGBA pixels (alpha left as it is), safe to apply from several threads at
// once, or NULL when the profile is broken, not RGB, or is sRGB itself.
// Relative colorimetric intent, as libvips.
void *sr_icc_to_srgb(const unsigned char *icc, unsigned int icc_len);

// sr_icc_apply converts n RGBA pixels in place.
void sr_icc_apply(void *transform, unsigned char *pix, size_t n);

// sr_icc_free releases a transform from sr_icc_to_srgb.
void sr_icc_free(void *transform);

#endif
