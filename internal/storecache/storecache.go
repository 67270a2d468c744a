// Package storecache keeps what a store reads often and can tell is still
// current, for the storage packages on every database alike: companies'
// configuration lists, kept with the version the database gave them.
package storecache

import (
	"maps"
	"slices"
	"sync"

	"github.com/showroom/showroom/internal/showroom"
)

// ConfigLists holds companies' configuration lists as read at a version (a
// counter the database bumps in every transaction that changes a company's
// configurations); it hands out and takes in copies, so no caller shares a
// configuration with it. At most max companies' lists are kept; when full,
// an arbitrary one makes room.
type ConfigLists struct {
	max   int
	mu    sync.Mutex
	lists map[int64]versionedList
}

type versionedList struct {
	version int64
	list    []*showroom.Configuration
}

// maxConfigLists bounds the companies whose configuration lists are kept:
// a list is a few KB.
const maxConfigLists = 1000

// NewConfigLists returns an empty ConfigLists.
func NewConfigLists() *ConfigLists {
	return &ConfigLists{max: maxConfigLists, lists: map[int64]versionedList{}}
}

// Get returns a copy of the company's list if it was kept at version.
func (l *ConfigLists) Get(companyID, version int64) ([]*showroom.Configuration, bool) {
	l.mu.Lock()
	v, ok := l.lists[companyID]
	l.mu.Unlock()
	if !ok || v.version != version {
		return nil, false
	}
	return copyConfigurations(v.list), true
}

// Put keeps a copy of the company's list as read at version.
func (l *ConfigLists) Put(companyID, version int64, list []*showroom.Configuration) {
	list = copyConfigurations(list)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.lists[companyID]; !ok && len(l.lists) >= l.max {
		for k := range l.lists {
			delete(l.lists, k)
			break
		}
	}
	l.lists[companyID] = versionedList{version: version, list: list}
}

func copyConfigurations(list []*showroom.Configuration) []*showroom.Configuration {
	out := make([]*showroom.Configuration, len(list))
	for i, c := range list {
		cp := *c
		cp.Processors = slices.Clone(c.Processors)
		cp.ContentRefs = slices.Clone(c.ContentRefs)
		cp.UI.NameDescriptions = maps.Clone(c.UI.NameDescriptions)
		out[i] = &cp
	}
	return out
}
