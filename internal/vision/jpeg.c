#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <lcms2.h>

#include "jpeg.h"

// libjpeg reports a fatal error by calling error_exit, which must not
// return: it jumps back into sr_jpeg_decode.
struct sr_error {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	char *msg;
	size_t msg_len;
};

static void sr_error_exit(j_common_ptr cinfo) {
	struct sr_error *e = (struct sr_error *)cinfo->err;
	char buf[JMSG_LENGTH_MAX];
	(*cinfo->err->format_message)(cinfo, buf);
	snprintf(e->msg, e->msg_len, "%s", buf);
	longjmp(e->jump, 1);
}

// Warnings (corrupt or truncated data) are counted, not printed; the
// decode fails on any, as libvips does with fail-on-error.
static void sr_emit_message(j_common_ptr cinfo, int level) {
	struct sr_error *e = (struct sr_error *)cinfo->err;
	if (level < 0 && e->pub.num_warnings++ == 0) {
		char buf[JMSG_LENGTH_MAX];
		(*cinfo->err->format_message)(cinfo, buf);
		snprintf(e->msg, e->msg_len, "%s", buf);
	}
}

int sr_jpeg_decode(const unsigned char *data, size_t len, unsigned char *out, int w, int h,
                   unsigned char **icc, unsigned int *icc_len, char *msg, size_t msg_len) {
	struct jpeg_decompress_struct cinfo;
	struct sr_error err;
	// volatile: read after a longjmp.
	volatile int result = SR_CORRUPT;
	*icc = NULL;
	*icc_len = 0;
	msg[0] = 0;
	cinfo.err = jpeg_std_error(&err.pub);
	err.pub.error_exit = sr_error_exit;
	err.pub.emit_message = sr_emit_message;
	err.msg = msg;
	err.msg_len = msg_len;
	if (setjmp(err.jump)) {
		jpeg_destroy_decompress(&cinfo);
		if (*icc) {
			free(*icc);
			*icc = NULL;
		}
		return result;
	}
	jpeg_create_decompress(&cinfo);
	jpeg_mem_src(&cinfo, data, len);
	jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
	jpeg_read_header(&cinfo, TRUE);
	if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK ||
	    (int)cinfo.image_width != w || (int)cinfo.image_height != h) {
		snprintf(msg, msg_len, "colour space %d, %ux%u", cinfo.jpeg_color_space, cinfo.image_width,
		         cinfo.image_height);
		jpeg_destroy_decompress(&cinfo);
		return SR_UNSUPPORTED;
	}
	// Grey and YCbCr both convert to RGBA with an opaque alpha.
	cinfo.out_color_space = JCS_EXT_RGBA;
	jpeg_start_decompress(&cinfo);
	JOCTET *profile = NULL;
	unsigned int profile_len = 0;
	if (jpeg_read_icc_profile(&cinfo, &profile, &profile_len)) {
		*icc = profile;
		*icc_len = profile_len;
	}
	size_t stride = (size_t)w * 4;
	while (cinfo.output_scanline < cinfo.output_height) {
		JSAMPROW rows[16];
		int n = 0;
		for (; n < 16 && cinfo.output_scanline + n < cinfo.output_height; n++) {
			rows[n] = out + (size_t)(cinfo.output_scanline + n) * stride;
		}
		jpeg_read_scanlines(&cinfo, rows, n);
	}
	jpeg_finish_decompress(&cinfo);
	jpeg_destroy_decompress(&cinfo);
	if (err.pub.num_warnings > 0) {
		free(*icc);
		*icc = NULL;
		return SR_CORRUPT;
	}
	return SR_OK;
}

// Little CMS reports errors through a global handler; they are returned as
// NULL transforms instead, so it is silenced once.
static void sr_lcms_quiet(cmsContext ctx, cmsUInt32Number code, const char *text) {
	(void)ctx;
	(void)code;
	(void)text;
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
	// Relative colorimetric, as libvips converts by default. NOCACHE makes
	// the transform safe to use from several threads at once.
	cmsHTRANSFORM t = cmsCreateTransform(in, TYPE_RGBA_8, srgb, TYPE_RGBA_8,
	                                     INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE);
	cmsCloseProfile(in);
	cmsCloseProfile(srgb);
	if (!t) {
		return NULL;
	}
	// An sRGB profile (by whatever name) maps every colour to itself: no
	// need to spend the time on it. Checked on a 9×9×9 grid.
	unsigned char probe[9 * 9 * 9 * 4], conv[9 * 9 * 9 * 4];
	int i = 0;
	for (int r = 0; r < 9; r++)
		for (int g = 0; g < 9; g++)
			for (int b = 0; b < 9; b++, i += 4) {
				probe[i] = (unsigned char)(r * 255 / 8);
				probe[i + 1] = (unsigned char)(g * 255 / 8);
				probe[i + 2] = (unsigned char)(b * 255 / 8);
				probe[i + 3] = 255;
			}
	memcpy(conv, probe, sizeof probe);
	cmsDoTransform(t, conv, conv, 9 * 9 * 9);
	int same = 1;
	for (i = 0; i < (int)sizeof probe && same; i++) {
		same = abs((int)conv[i] - (int)probe[i]) <= 1;
	}
	if (same) {
		cmsDeleteTransform(t);
		return NULL;
	}
	return t;
}

void sr_icc_apply(void *transform, unsigned char *pix, size_t n) {
	cmsDoTransform((cmsHTRANSFORM)transform, pix, pix, (cmsUInt32Number)n);
}

void sr_icc_free(void *transform) { cmsDeleteTransform((cmsHTRANSFORM)transform); }
