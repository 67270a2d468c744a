// JPEG decoding with libjpeg-turbo straight into a caller's RGBA buffer,
// and colour-profile conversion to sRGB with Little CMS, for decode.go.
#ifndef SHOWROOM_JPEG_H
#define SHOWROOM_JPEG_H

#include <stddef.h>

// Results of the sr_jpeg_reader and sr_jpeg_writer calls.
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
	// A reader or writer could not be allocated.
	SR_NO_MEMORY = 6,
};

// sr_jpeg_reader decodes a w×h JPEG (not CMYK or YCCK: SR_UNSUPPORTED)
// into RGBA, a band of rows at a time: sr_jpeg_reader_start, then
// sr_jpeg_reader_rows for the rows top to bottom, then
// sr_jpeg_reader_finish, and sr_jpeg_reader_free whatever happened. It
// fails a decode that has more than max_scans scans (SR_TOO_MANY_SCANS),
// that needs more than max_memory bytes of libjpeg's whole-image buffers
// (SR_TOO_LARGE; 0 for no limit), or whose *cancel becomes non-zero during
// a call (SR_CANCELLED; cancel may be NULL); a warning that leaves the image
// whole is ignored, any other fails it (SR_CORRUPT). data must stay where it
// is until the reader is freed; no other pointer is kept between calls. A
// call that fails spends the reader: sr_jpeg_reader_message says why.
typedef struct sr_jpeg_reader sr_jpeg_reader;

// sr_jpeg_reader_start reads the header; the embedded ICC profile, if any,
// is returned in *icc (malloc'd; the caller frees it) and *icc_len. NULL
// only when the reader could not be allocated.
sr_jpeg_reader *sr_jpeg_reader_start(const unsigned char *data, size_t len, int w, int h, int max_scans,
                                     long max_memory, const int *cancel, unsigned char **icc,
                                     unsigned int *icc_len, int *result);
// sr_jpeg_reader_rows decodes the next n rows into out, stride bytes apart.
int sr_jpeg_reader_rows(sr_jpeg_reader *r, unsigned char *out, size_t stride, int n, const int *cancel);
int sr_jpeg_reader_finish(sr_jpeg_reader *r, const int *cancel);
const char *sr_jpeg_reader_message(const sr_jpeg_reader *r);
void sr_jpeg_reader_free(sr_jpeg_reader *r);

// sr_jpeg_writer writes RGBA pixels (alpha ignored) as a baseline JPEG as
// their rows arrive, with optimised Huffman tables and no metadata, chroma
// subsampled 2×2 below quality 90 and kept whole from 90 (as libvips's
// jpegsave by default): sr_jpeg_writer_start, sr_jpeg_writer_rows for the
// rows top to bottom, sr_jpeg_writer_finish, then sr_jpeg_writer_output
// holds the file, until sr_jpeg_writer_free. A call that fails (its result
// not SR_OK) spends the writer: sr_jpeg_writer_message says why, and only
// sr_jpeg_writer_free is left to call.
typedef struct sr_jpeg_writer sr_jpeg_writer;

// sr_jpeg_writer_start begins a w×h JPEG at quality; *result says whether
// it could. NULL only when the writer could not be allocated.
sr_jpeg_writer *sr_jpeg_writer_start(int w, int h, int quality, int *result);
// sr_jpeg_writer_rows compresses the next n rows, at pix, stride bytes
// apart.
int sr_jpeg_writer_rows(sr_jpeg_writer *wr, const unsigned char *pix, int stride, int n);
int sr_jpeg_writer_finish(sr_jpeg_writer *wr);
const unsigned char *sr_jpeg_writer_output(const sr_jpeg_writer *wr, unsigned long *len);
const char *sr_jpeg_writer_message(const sr_jpeg_writer *wr);
void sr_jpeg_writer_free(sr_jpeg_writer *wr);

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
