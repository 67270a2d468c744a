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
// libvips does as the image is read, the steps govips's (decode.go's
// earlier) toSRGB took: the embedded profile to sRGB, whatever colour space
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
