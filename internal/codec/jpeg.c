#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <lcms2.h>

#include "jpeg.h"

// libjpeg reports a fatal error by calling error_exit, which must not
// return: it jumps back into the reader or writer call under way, with the
// result to give.
struct sr_error {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	int result;
	char *msg;
	size_t msg_len;
};

static void sr_fail(j_common_ptr cinfo, int result) {
	struct sr_error *e = (struct sr_error *)cinfo->err;
	char buf[JMSG_LENGTH_MAX];
	(*cinfo->err->format_message)(cinfo, buf);
	snprintf(e->msg, e->msg_len, "%s", buf);
	e->result = result;
	longjmp(e->jump, 1);
}

static void sr_error_exit(j_common_ptr cinfo) {
	int code = cinfo->err->msg_code;
	// Over max_memory_to_use, libjpeg asks for a backing store (it has
	// none here) or runs out of memory: the file wants more than allowed.
	sr_fail(cinfo, code == JERR_NO_BACKING_STORE || code == JERR_OUT_OF_MEMORY ? SR_TOO_LARGE : SR_CORRUPT);
}

// sr_error_init makes err the error manager of a libjpeg call that
// reports into msg (msg_len bytes) and jumps back to err->jump on failure.
static struct jpeg_error_mgr *sr_error_init(struct sr_error *err, char *msg, size_t msg_len) {
	jpeg_std_error(&err->pub);
	err->pub.error_exit = sr_error_exit;
	err->result = SR_CORRUPT;
	err->msg = msg;
	err->msg_len = msg_len;
	msg[0] = 0;
	return &err->pub;
}

// sr_warning_is_harmless tells the warnings after which the image is still
// whole: garbage between header segments or after the last scan's data
// (before EOI: common in camera files), metadata libjpeg does not know or
// cannot read, progression parameters a sequential file should not have
// had. Every other warning means pixels are missing or made up (a
// truncated file, a bad Huffman code, a lost restart marker, an
// inconsistent progression) and fails the decode at once; so does garbage
// after a scan before another marker, which means the scan ended before
// its data did: its data is not what was encoded.
static int sr_warning_is_harmless(j_common_ptr cinfo) {
	switch (cinfo->err->msg_code) {
	case JWRN_EXTRANEOUS_DATA:
		return ((j_decompress_ptr)cinfo)->input_scan_number == 0 || cinfo->err->msg_parm.i[1] == JPEG_EOI;
	case JWRN_JFIF_MAJOR:
	case JWRN_ADOBE_XFORM:
	case JWRN_BOGUS_ICC:
	case JWRN_NOT_SEQUENTIAL:
		return 1;
	}
	return 0;
}

// Messages are never printed; a harmful warning fails the decode where it
// is raised, so a truncated file costs no more than the bytes it has.
static void sr_emit_message(j_common_ptr cinfo, int level) {
	if (level < 0 && !sr_warning_is_harmless(cinfo)) {
		sr_fail(cinfo, SR_CORRUPT);
	}
}

// The progress monitor is called before each iMCU row of input (and of
// output): often enough to stop a progressive file at its scan limit and
// a decode whose caller has given up within milliseconds.
struct sr_progress {
	struct jpeg_progress_mgr pub;
	int max_scans;
	const int *cancel;
};

static void sr_progress_monitor(j_common_ptr cinfo) {
	struct sr_progress *p = (struct sr_progress *)cinfo->progress;
	struct sr_error *e = (struct sr_error *)cinfo->err;
	if (p->cancel && __atomic_load_n(p->cancel, __ATOMIC_RELAXED)) {
		snprintf(e->msg, e->msg_len, "cancelled");
		e->result = SR_CANCELLED;
		longjmp(e->jump, 1);
	}
	int scan = ((j_decompress_ptr)cinfo)->input_scan_number;
	if (scan > p->max_scans) {
		snprintf(e->msg, e->msg_len, "more than %d scans", p->max_scans);
		e->result = SR_TOO_MANY_SCANS;
		longjmp(e->jump, 1);
	}
}

struct sr_jpeg_reader {
	struct jpeg_decompress_struct cinfo;
	int live; // cinfo is created and not yet destroyed
	struct sr_error err;
	struct sr_progress progress;
	char msg[200];
};

// sr_reader_failed ends a reader call that failed (libjpeg left it by
// longjmp, or the file is left to libvips): the reader is spent.
static int sr_reader_failed(sr_jpeg_reader *r) {
	jpeg_destroy_decompress(&r->cinfo);
	r->live = 0;
	r->progress.cancel = NULL;
	return r->err.result;
}

sr_jpeg_reader *sr_jpeg_reader_start(const unsigned char *data, size_t len, int w, int h, int max_scans,
                                     long max_memory, const int *cancel, unsigned char **icc,
                                     unsigned int *icc_len, int *result) {
	*icc = NULL;
	*icc_len = 0;
	sr_jpeg_reader *r = calloc(1, sizeof *r);
	if (!r) {
		*result = SR_NO_MEMORY;
		return NULL;
	}
	r->cinfo.err = sr_error_init(&r->err, r->msg, sizeof r->msg);
	r->err.pub.emit_message = sr_emit_message;
	if (setjmp(r->err.jump)) {
		if (*icc) {
			free(*icc);
			*icc = NULL;
		}
		*result = sr_reader_failed(r);
		return r;
	}
	jpeg_create_decompress(&r->cinfo);
	r->live = 1;
	r->cinfo.mem->max_memory_to_use = max_memory;
	r->progress.pub.progress_monitor = sr_progress_monitor;
	r->progress.max_scans = max_scans;
	r->progress.cancel = cancel;
	r->cinfo.progress = &r->progress.pub;
	jpeg_mem_src(&r->cinfo, data, len);
	jpeg_save_markers(&r->cinfo, JPEG_APP0 + 2, 0xFFFF);
	jpeg_read_header(&r->cinfo, TRUE);
	if (r->cinfo.jpeg_color_space == JCS_CMYK || r->cinfo.jpeg_color_space == JCS_YCCK ||
	    (int)r->cinfo.image_width != w || (int)r->cinfo.image_height != h) {
		snprintf(r->msg, sizeof r->msg, "colour space %d, %ux%u", r->cinfo.jpeg_color_space,
		         r->cinfo.image_width, r->cinfo.image_height);
		sr_reader_failed(r);
		*result = SR_UNSUPPORTED;
		return r;
	}
	// Grey and YCbCr both convert to RGBA with an opaque alpha.
	r->cinfo.out_color_space = JCS_EXT_RGBA;
	jpeg_start_decompress(&r->cinfo);
	JOCTET *profile = NULL;
	unsigned int profile_len = 0;
	if (jpeg_read_icc_profile(&r->cinfo, &profile, &profile_len)) {
		*icc = profile;
		*icc_len = profile_len;
	}
	r->progress.cancel = NULL;
	*result = SR_OK;
	return r;
}

int sr_jpeg_reader_rows(sr_jpeg_reader *r, unsigned char *out, size_t stride, int n, const int *cancel) {
	if (setjmp(r->err.jump)) {
		return sr_reader_failed(r);
	}
	r->progress.cancel = cancel;
	int first = (int)r->cinfo.output_scanline;
	for (int done; (done = (int)r->cinfo.output_scanline - first) < n;) {
		JSAMPROW rows[16];
		int k = 0;
		for (; k < 16 && done + k < n; k++) {
			rows[k] = out + (size_t)(done + k) * stride;
		}
		jpeg_read_scanlines(&r->cinfo, rows, k);
	}
	r->progress.cancel = NULL;
	return SR_OK;
}

int sr_jpeg_reader_finish(sr_jpeg_reader *r, const int *cancel) {
	if (setjmp(r->err.jump)) {
		return sr_reader_failed(r);
	}
	r->progress.cancel = cancel;
	jpeg_finish_decompress(&r->cinfo);
	jpeg_destroy_decompress(&r->cinfo);
	r->live = 0;
	r->progress.cancel = NULL;
	return SR_OK;
}

const char *sr_jpeg_reader_message(const sr_jpeg_reader *r) { return r->msg; }

void sr_jpeg_reader_free(sr_jpeg_reader *r) {
	if (r) {
		if (r->live) {
			jpeg_destroy_decompress(&r->cinfo); // abandoned before its end
		}
		free(r);
	}
}

// Little CMS reports errors through a global handler; they are returned as
// NULL transforms instead, so it is silenced once.
static void sr_lcms_quiet(cmsContext ctx, cmsUInt32Number code, const char *text) {
	(void)ctx;
	(void)code;
	(void)text;
}

// A transform to sRGB. Little CMS's 8-bit transform of RGBA pixels takes
// about 13 ns a pixel (its matrix-shaper shortcut does not apply to
// pixels with an alpha byte); most photo profiles (Display P3, Adobe RGB)
// are matrix-shaper profiles, for which the same conversion is three
// table lookups, a 3×3 matrix and one more lookup: about a quarter of the
// time. The shortcut is used only when it agrees with Little CMS on a grid
// of colours.
typedef struct {
	cmsHTRANSFORM lcms;
	int fast;
	float lin[3][256];        // channel value -> linear light
	float m[9];               // linear profile RGB -> linear sRGB, row-major
	unsigned char enc[65536]; // linear sRGB in 1/65535 steps -> sRGB value
} sr_transform;

static int sr_invert3(const double a[9], double inv[9]) {
	double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
	             a[2] * (a[3] * a[7] - a[4] * a[6]);
	if (det > -1e-12 && det < 1e-12) {
		return 0;
	}
	inv[0] = (a[4] * a[8] - a[5] * a[7]) / det;
	inv[1] = (a[2] * a[7] - a[1] * a[8]) / det;
	inv[2] = (a[1] * a[5] - a[2] * a[4]) / det;
	inv[3] = (a[5] * a[6] - a[3] * a[8]) / det;
	inv[4] = (a[0] * a[8] - a[2] * a[6]) / det;
	inv[5] = (a[2] * a[3] - a[0] * a[5]) / det;
	inv[6] = (a[3] * a[7] - a[4] * a[6]) / det;
	inv[7] = (a[1] * a[6] - a[0] * a[7]) / det;
	inv[8] = (a[0] * a[4] - a[1] * a[3]) / det;
	return 1;
}

// sr_colorants reads a matrix-shaper profile's colorants (XYZ, D50) as the
// columns of a matrix.
static int sr_colorants(cmsHPROFILE p, double m[9]) {
	cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
	for (int c = 0; c < 3; c++) {
		cmsCIEXYZ *xyz = cmsReadTag(p, tags[c]);
		if (!xyz) {
			return 0;
		}
		m[c] = xyz->X;
		m[3 + c] = xyz->Y;
		m[6 + c] = xyz->Z;
	}
	return 1;
}

// sr_build_fast fills t's tables for the matrix-shaper profiles in and out.
static int sr_build_fast(sr_transform *t, cmsHPROFILE in, cmsHPROFILE out) {
	if (!cmsIsMatrixShaper(in) || !cmsIsMatrixShaper(out)) {
		return 0;
	}
	double mi[9], mo[9], moi[9];
	if (!sr_colorants(in, mi) || !sr_colorants(out, mo) || !sr_invert3(mo, moi)) {
		return 0;
	}
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 3; c++) {
			t->m[3 * r + c] = (float)(moi[3 * r] * mi[c] + moi[3 * r + 1] * mi[3 + c] + moi[3 * r + 2] * mi[6 + c]);
		}
	}
	cmsTagSignature trc[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
	for (int c = 0; c < 3; c++) {
		cmsToneCurve *curve = cmsReadTag(in, trc[c]);
		if (!curve) {
			return 0;
		}
		for (int i = 0; i < 256; i++) {
			t->lin[c][i] = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)i / 255);
		}
	}
	cmsToneCurve *curve = cmsReadTag(out, cmsSigRedTRCTag);
	if (!curve) {
		return 0;
	}
	cmsToneCurve *inverse = cmsReverseToneCurve(curve);
	if (!inverse) {
		return 0;
	}
	for (int i = 0; i < 65536; i++) {
		float v = cmsEvalToneCurveFloat(inverse, (cmsFloat32Number)i / 65535);
		t->enc[i] = (unsigned char)(v <= 0 ? 0 : v >= 1 ? 255 : v * 255 + 0.5f);
	}
	cmsFreeToneCurve(inverse);
	t->fast = 1;
	return 1;
}

// sr_apply_fast converts n RGBA pixels in place. The matrix and the tables
// are read into locals first: a store through pix (a char pointer) could
// alias anything, so otherwise the compiler reloads the matrix after every
// pixel's stores. The arithmetic is the same, in the same order.
static void sr_apply_fast(const sr_transform *t, unsigned char *restrict pix, size_t n) {
	const float m0 = t->m[0], m1 = t->m[1], m2 = t->m[2], m3 = t->m[3], m4 = t->m[4], m5 = t->m[5],
	            m6 = t->m[6], m7 = t->m[7], m8 = t->m[8];
	const float *restrict lr = t->lin[0], *restrict lg = t->lin[1], *restrict lb = t->lin[2];
	const unsigned char *restrict enc = t->enc;
	for (size_t i = 0; i < n; i++, pix += 4) {
		float r = lr[pix[0]], g = lg[pix[1]], b = lb[pix[2]];
		float v0 = (m0 * r + m1 * g + m2 * b) * 65535 + 0.5f;
		float v1 = (m3 * r + m4 * g + m5 * b) * 65535 + 0.5f;
		float v2 = (m6 * r + m7 * g + m8 * b) * 65535 + 0.5f;
		pix[0] = enc[v0 <= 0 ? 0 : v0 >= 65535 ? 65535 : (int)v0];
		pix[1] = enc[v1 <= 0 ? 0 : v1 >= 65535 ? 65535 : (int)v1];
		pix[2] = enc[v2 <= 0 ? 0 : v2 >= 65535 ? 65535 : (int)v2];
	}
}

void sr_icc_apply(void *transform, unsigned char *pix, size_t n) {
	sr_transform *t = transform;
	if (t->fast) {
		sr_apply_fast(t, pix, n);
	} else {
		cmsDoTransform(t->lcms, pix, pix, (cmsUInt32Number)n);
	}
}

void sr_icc_free(void *transform) {
	sr_transform *t = transform;
	cmsDeleteTransform(t->lcms);
	free(t);
}

// The probe grid: 9 levels a channel, 729 colours.
#define SR_PROBE (9 * 9 * 9)

static void sr_probe(unsigned char *p) {
	for (int r = 0; r < 9; r++)
		for (int g = 0; g < 9; g++)
			for (int b = 0; b < 9; b++, p += 4) {
				p[0] = (unsigned char)(r * 255 / 8);
				p[1] = (unsigned char)(g * 255 / 8);
				p[2] = (unsigned char)(b * 255 / 8);
				p[3] = 255;
			}
}

static int sr_max_diff(const unsigned char *a, const unsigned char *b, size_t n) {
	int worst = 0;
	for (size_t i = 0; i < n; i++) {
		int d = abs((int)a[i] - (int)b[i]);
		worst = d > worst ? d : worst;
	}
	return worst;
}

void *sr_icc_to_srgb(const unsigned char *icc, unsigned int icc_len) {
	cmsSetLogErrorHandler(sr_lcms_quiet);
	cmsHPROFILE in = cmsOpenProfileFromMem(icc, icc_len);
	if (!in) {
		return NULL;
	}
	if (cmsGetColorSpace(in) != cmsSigRgbData) {
		cmsCloseProfile(in);
		return NULL;
	}
	cmsHPROFILE srgb = cmsCreate_sRGBProfile();
	sr_transform *t = calloc(1, sizeof *t);
	// Relative colorimetric, as libvips converts by default. NOCACHE makes
	// the transform safe to use from several threads at once.
	t->lcms = cmsCreateTransform(in, TYPE_RGBA_8, srgb, TYPE_RGBA_8, INTENT_RELATIVE_COLORIMETRIC,
	                             cmsFLAGS_NOCACHE);
	if (!t->lcms) {
		free(t);
		cmsCloseProfile(in);
		cmsCloseProfile(srgb);
		return NULL;
	}
	unsigned char probe[SR_PROBE * 4], want[SR_PROBE * 4], got[SR_PROBE * 4];
	sr_probe(probe);
	memcpy(want, probe, sizeof probe);
	cmsDoTransform(t->lcms, want, want, SR_PROBE);
	// An sRGB profile (by whatever name) maps every colour to itself: no
	// need to spend the time on it.
	if (sr_max_diff(want, probe, sizeof probe) <= 1) {
		sr_icc_free(t);
		t = NULL;
	} else if (sr_build_fast(t, in, srgb)) {
		memcpy(got, probe, sizeof probe);
		sr_apply_fast(t, got, SR_PROBE);
		t->fast = sr_max_diff(got, want, sizeof probe) <= 1;
	}
	cmsCloseProfile(in);
	cmsCloseProfile(srgb);
	return t;
}

struct sr_jpeg_writer {
	struct jpeg_compress_struct cinfo;
	int live; // cinfo is created and not yet destroyed
	struct sr_error err;
	unsigned char *out;
	unsigned long out_len;
	char msg[200];
};

// sr_writer_failed ends a writer call that libjpeg left by longjmp: the
// writer is spent, its output dropped.
static int sr_writer_failed(sr_jpeg_writer *wr) {
	jpeg_destroy_compress(&wr->cinfo);
	wr->live = 0;
	free(wr->out);
	wr->out = NULL;
	wr->out_len = 0;
	return wr->err.result;
}

sr_jpeg_writer *sr_jpeg_writer_start(int w, int h, int quality, int *result) {
	sr_jpeg_writer *wr = calloc(1, sizeof *wr);
	if (!wr) {
		*result = SR_NO_MEMORY;
		return NULL;
	}
	wr->cinfo.err = sr_error_init(&wr->err, wr->msg, sizeof wr->msg);
	if (setjmp(wr->err.jump)) {
		*result = sr_writer_failed(wr);
		return wr;
	}
	jpeg_create_compress(&wr->cinfo);
	wr->live = 1;
	jpeg_mem_dest(&wr->cinfo, &wr->out, &wr->out_len);
	wr->cinfo.image_width = w;
	wr->cinfo.image_height = h;
	wr->cinfo.input_components = 4;
	wr->cinfo.in_color_space = JCS_EXT_RGBX;
	jpeg_set_defaults(&wr->cinfo);
	jpeg_set_quality(&wr->cinfo, quality, TRUE);
	wr->cinfo.optimize_coding = TRUE;
	wr->cinfo.write_JFIF_header = FALSE; // libvips strips it with the metadata
	// libvips's default: chroma at full resolution from quality 90.
	int sub = quality < 90 ? 2 : 1;
	wr->cinfo.comp_info[0].h_samp_factor = sub;
	wr->cinfo.comp_info[0].v_samp_factor = sub;
	for (int c = 1; c < 3; c++) {
		wr->cinfo.comp_info[c].h_samp_factor = 1;
		wr->cinfo.comp_info[c].v_samp_factor = 1;
	}
	jpeg_start_compress(&wr->cinfo, TRUE);
	*result = SR_OK;
	return wr;
}

int sr_jpeg_writer_rows(sr_jpeg_writer *wr, const unsigned char *pix, int stride, int n) {
	if (setjmp(wr->err.jump)) {
		return sr_writer_failed(wr);
	}
	for (int i = 0; i < n; i++) {
		JSAMPROW row = (JSAMPROW)(pix + (size_t)i * stride);
		jpeg_write_scanlines(&wr->cinfo, &row, 1);
	}
	return SR_OK;
}

int sr_jpeg_writer_finish(sr_jpeg_writer *wr) {
	if (setjmp(wr->err.jump)) {
		return sr_writer_failed(wr);
	}
	jpeg_finish_compress(&wr->cinfo);
	jpeg_destroy_compress(&wr->cinfo);
	wr->live = 0;
	return SR_OK;
}

const unsigned char *sr_jpeg_writer_output(const sr_jpeg_writer *wr, unsigned long *len) {
	*len = wr->out_len;
	return wr->out;
}

const char *sr_jpeg_writer_message(const sr_jpeg_writer *wr) { return wr->msg; }

void sr_jpeg_writer_free(sr_jpeg_writer *wr) {
	if (wr) {
		if (wr->live) {
			jpeg_destroy_compress(&wr->cinfo); // abandoned before its end
		}
		free(wr->out);
		free(wr);
	}
}
