package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/showroom/showroom/internal/showroom"
)

// Step is one processor object of a configuration, decoded from JSON:
// "processorName" and the parameters. Numbers are float64.
type Step map[string]any

// Name returns the step's processorName.
func (s Step) Name() string { n, _ := s["processorName"].(string); return n }

// ContentLookup tells the validator about a content name: its content type
// and whether the company (or the built-in content) has it. An error means
// the lookup itself failed, not that the content is missing.
type ContentLookup func(ctx context.Context, name string) (contentType string, found bool, err error)

var colourRE = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// Validate checks a configuration, decoded from a JSON array (each element
// as decoded by encoding/json into any), against the catalog: contract
// rules 1 and 2 (DetectCarMaskProcessor first, dependencies earlier), at
// most MaxProcessors, known processors and parameters, JSON types, ranges,
// enums, colours, required parameters, and (when content is not nil)
// referenced content that exists with a fitting type. It returns one Detail
// per problem, with a JSON pointer into the array, and nil when the
// configuration is valid. The error is only for a failing content lookup.
func Validate(ctx context.Context, elems []any, content ContentLookup) ([]showroom.Detail, error) {
	var ds []showroom.Detail
	add := func(ptr, format string, args ...any) {
		ds = append(ds, showroom.Detail{Pointer: ptr, Problem: fmt.Sprintf(format, args...)})
	}
	if len(elems) == 0 {
		add("", "a configuration needs at least one processor, and the first must be %s", DetectCarMask)
		return ds, nil
	}
	if len(elems) > MaxProcessors {
		add("", "a configuration may hold at most %d processors, this one has %d", MaxProcessors, len(elems))
		return ds, nil
	}
	seen := map[string]bool{}
	var bg setBackground
	for i, el := range elems {
		base := fmt.Sprintf("/%d", i)
		obj, ok := el.(map[string]any)
		if !ok {
			add(base, "must be a processor object")
			continue
		}
		rawName, present := obj["processorName"]
		name, isString := rawName.(string)
		switch {
		case !present:
			add(base+"/processorName", "is required")
			continue
		case !isString:
			add(base+"/processorName", "must be a string")
			continue
		}
		p, known := Lookup(name)
		if !known {
			add(base+"/processorName", "unknown processor %q; GET /v1/processors lists them", name)
			continue
		}
		if i == 0 && name != DetectCarMask {
			add(base+"/processorName", "the first processor must be %s", DetectCarMask)
		} else if i > 0 && name == DetectCarMask {
			add(base+"/processorName", "%s may only be the first processor", DetectCarMask)
		}
		for _, req := range p.Requires {
			if !seen[req] && !(i == 0 && req == DetectCarMask) {
				add(base+"/processorName", "%s requires %s earlier in the list", name, req)
			}
		}
		seen[name] = true
		for _, key := range sortedKeys(obj) {
			if key == "processorName" {
				continue
			}
			ptr := base + "/" + escapePointer(key)
			param, ok := p.Param(key)
			if !ok {
				add(ptr, "unknown parameter of %s", name)
				continue
			}
			problem, err := checkValue(ctx, param, obj[key], content)
			if err != nil {
				return nil, err
			}
			if problem != "" {
				add(ptr, "%s", problem)
			}
		}
		for _, param := range p.Params {
			if _, ok := obj[param.Name]; param.Required && !ok {
				add(base+"/"+escapePointer(param.Name), "is required by %s", name)
			}
		}
		if set, ok := backgroundSet(name, obj); ok {
			set.at = i
			if bg.value != "" && !strings.EqualFold(bg.value, set.value) {
				add(base+"/"+set.ptr, "%s's %s %s would replace the background %s that %s at /%d set: a configuration "+
					"has one background; leave it to one of them (%s without background keeps the earlier one)",
					name, set.param, set.value, bg.value, bg.by, bg.at, PlaceCar)
			} else if bg.value == "" {
				set.by = name
				bg = set
			}
		}
	}
	return ds, nil
}

// setBackground is the background a step sets, for Validate's rule that a
// configuration has one: a later processor that silently replaced an
// earlier one's background (PlaceCarProcessor's white over an uploaded
// studio) was a trap no dealer would see until the results came back.
type setBackground struct {
	value      string // a colour, or a quoted content name
	param, ptr string // the parameter that sets it and where to point
	by         string
	at         int
}

// backgroundSet returns the background a step sets, if it sets one:
// CleanBackgroundProcessor always (its colour, white by default),
// AddBackgroundAndCropProcessor its image, PlaceCarProcessor only with
// an explicit background (without one it keeps an earlier background).
// A value of the wrong type sets nothing: Validate reports it already.
func backgroundSet(name string, obj map[string]any) (setBackground, bool) {
	param, ptr := "", ""
	switch name {
	case CleanBackground:
		param, ptr = "color", "color"
		if _, ok := obj[param]; !ok {
			return setBackground{value: "#FFFFFF", param: param, ptr: "processorName"}, true
		}
	case PlaceCar:
		param, ptr = "background", "background"
	case AddBackgroundAndCrop:
		n, ok := obj["background"].(string)
		return setBackground{value: fmt.Sprintf("%q", n), param: "background", ptr: "background"}, ok
	default:
		return setBackground{}, false
	}
	c, ok := obj[param].(string)
	if !ok || !colourRE.MatchString(c) {
		return setBackground{}, false
	}
	return setBackground{value: strings.ToUpper(c), param: param, ptr: ptr}, true
}

// checkValue returns what is wrong with v as a value of param, or "".
func checkValue(ctx context.Context, param *Param, v any, content ContentLookup) (string, error) {
	switch param.Type {
	case Number, Integer:
		f, ok := asFloat(v)
		if !ok {
			return "must be a " + string(param.Type), nil
		}
		if param.Type == Integer && f != math.Trunc(f) {
			return "must be an integer", nil
		}
		if param.Min != nil && param.Max != nil && (f < *param.Min || f > *param.Max) {
			return fmt.Sprintf("must be between %s and %s", fmtNum(*param.Min), fmtNum(*param.Max)), nil
		}
	case Boolean:
		if _, ok := v.(bool); !ok {
			return "must be a boolean (true or false)", nil
		}
	case String:
		s, ok := v.(string)
		if !ok {
			return "must be a string", nil
		}
		switch param.Kind {
		case Colour:
			if !colourRE.MatchString(s) {
				return "must be a colour of the form #RRGGBB", nil
			}
		case Enum:
			for _, e := range param.Enum {
				if s == e {
					return "", nil
				}
			}
			return "must be one of " + strings.Join(param.Enum, ", "), nil
		case ContentRef:
			if !showroom.ValidName(s) {
				return "must be a content name (1 to 64 letters and digits)", nil
			}
			if content == nil {
				return "", nil
			}
			typ, found, err := content(ctx, s)
			if err != nil {
				return "", err
			}
			if !found {
				return fmt.Sprintf("no content named %q; upload it first", s), nil
			}
			for _, t := range param.ContentTypes {
				if t == typ {
					return "", nil
				}
			}
			return fmt.Sprintf("content %q is of type %s; %s needed", s, typ, strings.Join(param.ContentTypes, " or ")), nil
		}
	}
	return "", nil
}

// DecodeSteps decodes a configuration's JSON array into steps.
func DecodeSteps(raw json.RawMessage) ([]Step, error) {
	var steps []Step
	if err := json.Unmarshal(raw, &steps); err != nil {
		return nil, err
	}
	return steps, nil
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	}
	return 0, false
}

func fmtNum(f float64) string { return fmt.Sprintf("%g", f) }

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func sortedKeys(m map[string]any) []string {
	// Sorted so that details come in a stable order.
	return slices.Sorted(maps.Keys(m))
}
