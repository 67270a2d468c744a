#include <stdio.h>
#include <string.h>

#include <vips/vips.h>

#include "jpeg.h"
#include "vips.h"

// Rows converted and copied out between two looks at the cancel flag.
#define SR_STRIP 64

// sr_vips_error moves libvips's error buffer into msg. The buffer is
// process-wide: under concurrent decodes a message may be another's, which
// only the log sees.
static void sr_vips_error(char *msg, size_t msg_len, const char *what) {
	char *e = vips_error_buffer_copy();
	snprintf(msg, msg_len, "%s: %s", what, e && *e ? e : "libvips failed");
	g_free(e);
}

// sr_vips_load loads data lazily, for reading top to bottom. fail_on
// truncated: a file that ends early fails (the deprecated "fail" flag does
// not make every loader do so), while warnings that leave the image whole
// do not, as with the sr_jpeg_reader.
static VipsImage *sr_vips_load(const unsigned char *data, size_t len, int type) {
	VipsImage *out = NULL;
	int rc = -1;
	switch (type) {
	case SR_VIPS_JPEG:
		rc = vips_jpegload_buffer((void *)data, len, &out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
		                          VIPS_FAIL_ON_TRUNCATED, NULL);
		break;
	case SR_VIPS_PNG:
		rc = vips_pngload_buffer((void *)data, len, &out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
		                         VIPS_FAIL_ON_TRUNCATED, NULL);
		break;
	case SR_VIPS_WEBP:
		rc = vips_webpload_buffer((void *)data, len, &out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
		                          VIPS_FAIL_ON_TRUNCATED, NULL);
		break;
	}
	return rc ? NULL : out;
}

int sr_vips_header(const unsigned char *data, size_t len, int type, sr_vips_info *info, char *msg, size_t msg_len) {
	msg[0] = 0;
	VipsImage *img = sr_vips_load(data, len, type);
	if (!img) {
		sr_vips_error(msg, msg_len, "header");
		return SR_CORRUPT;
	}
	info->width = img->Xsize;
	info->height = img->Ysize;
	info->bands = img->Bands;
	info->sample_bytes = (int)vips_format_sizeof(img->BandFmt);
	info->orientation = 1;
	if (vips_image_get_typeof(img, VIPS_META_ORIENTATION)) {
		int o;
		if (!vips_image_get_int(img, VIPS_META_ORIENTATION, &o)) {
			info->orientation = o;
		}
	}
	g_object_unref(img);
	return SR_OK;
}

// sr_vips_convert builds, on in, the conversion to 8-bit sRGB RGBA that
// libvips does as the image is read, the steps a decode through govips
// took before: the embedded profile to sRGB, whatever colour space
// to sRGB, alpha flattened onto white or kept, 4 bands. The images made on
// the way belong to parent.
static VipsImage *sr_vips_convert(VipsObject *parent, VipsImage *in, const char *srgb, int keep_alpha) {
	VipsImage **t = (VipsImage **)vips_object_local_array(parent, 7);
	VipsImage *x = in;
	if (vips_image_get_typeof(x, VIPS_META_ICC_NAME)) {
		int depth = x->BandFmt == VIPS_FORMAT_UCHAR || x->BandFmt == VIPS_FORMAT_CHAR ? 8 : 16;
		if (vips_icc_transform(x, &t[0], srgb, "input_profile", srgb, "intent", VIPS_INTENT_PERCEPTUAL, "depth",
		                       depth, "embedded", TRUE, NULL)) {
			return NULL;
		}
		x = t[0];
	}
	if (x->Type != VIPS_INTERPRETATION_sRGB || x->BandFmt != VIPS_FORMAT_UCHAR) {
		if (vips_colourspace(x, &t[1], VIPS_INTERPRETATION_sRGB, NULL)) {
			return NULL;
		}
		x = t[1];
	}
	if (vips_image_hasalpha(x) && !keep_alpha) {
		VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
		int rc = vips_flatten(x, &t[2], "background", white, NULL);
		vips_area_unref(VIPS_AREA(white));
		if (rc) {
			return NULL;
		}
		x = t[2];
	}
	if (x->BandFmt != VIPS_FORMAT_UCHAR) {
		if (vips_cast(x, &t[3], VIPS_FORMAT_UCHAR, NULL)) {
			return NULL;
		}
		x = t[3];
	}
	int colour = keep_alpha && vips_image_hasalpha(x) && x->Bands >= 4 ? 4 : 3;
	if (x->Bands != colour) {
		if (vips_extract_band(x, &t[4], 0, "n", colour, NULL)) {
			return NULL;
		}
		x = t[4];
	}
	if (colour == 3) {
		if (vips_addalpha(x, &t[5], NULL)) {
			return NULL;
		}
		x = t[5];
	}
	return x;
}

int sr_vips_decode(const unsigned char *data, size_t len, int type, const char *srgb_profile, int keep_alpha,
                   unsigned char *out, int w, int h, const int *cancel, char *msg, size_t msg_len) {
	msg[0] = 0;
	VipsImage *in = sr_vips_load(data, len, type);
	if (!in) {
		sr_vips_error(msg, msg_len, "load");
		return SR_CORRUPT;
	}
	VipsObject *parent = VIPS_OBJECT(vips_image_new());
	int result = SR_OK;
	VipsImage *x = sr_vips_convert(parent, in, srgb_profile, keep_alpha);
	if (!x) {
		sr_vips_error(msg, msg_len, "convert");
		result = SR_CORRUPT;
	} else if (x->Xsize != w || x->Ysize != h || x->Bands != 4 || x->BandFmt != VIPS_FORMAT_UCHAR) {
		snprintf(msg, msg_len, "converted to %dx%d, %d bands of format %d; want %dx%d RGBA", x->Xsize, x->Ysize,
		         x->Bands, x->BandFmt, w, h);
		result = SR_CORRUPT;
	} else {
		VipsRegion *region = vips_region_new(x);
		size_t stride = (size_t)w * 4;
		for (int y = 0; y < h; y += SR_STRIP) {
			if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) {
				snprintf(msg, msg_len, "cancelled");
				result = SR_CANCELLED;
				break;
			}
			VipsRect r = {0, y, w, h - y < SR_STRIP ? h - y : SR_STRIP};
			if (vips_region_prepare(region, &r)) {
				sr_vips_error(msg, msg_len, "decode");
				result = SR_CORRUPT;
				break;
			}
			for (int i = 0; i < r.height; i++) {
				memcpy(out + (size_t)(y + i) * stride, VIPS_REGION_ADDR(region, 0, y + i), stride);
			}
		}
		g_object_unref(region);
	}
	g_object_unref(parent);
	g_object_unref(in);
	return result;
}

// sr_vips_quiet drops a libvips warning: a file's oddities that leave it
// readable are not the service's to log.
static void sr_vips_quiet(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {}

int sr_vips_start(char *msg, size_t msg_len) {
	msg[0] = 0;
	if (VIPS_INIT("showroom")) {
		sr_vips_error(msg, msg_len, "start");
		return SR_CORRUPT;
	}
	g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG,
	                  sr_vips_quiet, NULL);
	vips_concurrency_set(1);
	vips_cache_set_max(0);
	vips_cache_set_max_mem(0);
	vips_cache_set_max_files(0);
	return SR_OK;
}

int sr_vips_encode(const unsigned char *pix, int w, int h, int has_alpha, int type, int quality, void **out,
                   size_t *out_len, char *msg, size_t msg_len) {
	msg[0] = 0;
	*out = NULL;
	*out_len = 0;
	VipsImage *base = vips_image_new();
	VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(base), 2);
	int rc = -1;
	VipsImage *in = vips_image_new_from_memory_copy(pix, (size_t)w * h * 4, w, h, 4, VIPS_FORMAT_UCHAR);
	if (!in) {
		goto done;
	}
	in->Type = VIPS_INTERPRETATION_sRGB;
	vips_object_local(base, in);
	if (!has_alpha) {
		if (vips_extract_band(in, &t[0], 0, "n", 3, NULL)) {
			goto done;
		}
		in = t[0];
	} else if (type == SR_VIPS_JPEG) {
		double white[3] = {255, 255, 255};
		VipsArrayDouble *bg = vips_array_double_new(white, 3);
		rc = vips_flatten(in, &t[1], "background", bg, NULL);
		vips_area_unref(VIPS_AREA(bg));
		if (rc) {
			goto done;
		}
		in = t[1];
	}
	switch (type) {
	case SR_VIPS_JPEG:
		rc = vips_jpegsave_buffer(in, out, out_len, "strip", TRUE, "optimize_coding", TRUE, "interlace", FALSE,
		                          "subsample_mode", VIPS_FOREIGN_SUBSAMPLE_AUTO, "trellis_quant", FALSE,
		                          "overshoot_deringing", FALSE, "optimize_scans", FALSE, "quant_table", 0, "Q",
		                          quality, NULL);
		break;
	case SR_VIPS_PNG:
		rc = vips_pngsave_buffer(in, out, out_len, "strip", TRUE, "compression", 4, "interlace", FALSE, "filter",
		                         VIPS_FOREIGN_PNG_FILTER_ALL, "palette", FALSE, NULL);
		break;
	case SR_VIPS_WEBP:
		rc = vips_webpsave_buffer(in, out, out_len, "strip", TRUE, "lossless", FALSE, "near_lossless", FALSE,
		                          "reduction_effort", 3, "profile", "none", "min_size", FALSE, "kmin", 0, "kmax", 0,
		                          "Q", quality, NULL);
		break;
	}
done:
	if (rc) {
		sr_vips_error(msg, msg_len, "encode");
		if (*out) {
			g_free(*out);
			*out = NULL;
		}
	}
	g_object_unref(base);
	return rc ? SR_CORRUPT : SR_OK;
}
