package sqlite_test

import (
	"testing"

	"github.com/showroom/showroom/internal/storetest"
)

func TestContentStore(t *testing.T) {
	storetest.Content(t, func(t *testing.T) storetest.LibraryStore { return newDB(t) })
}

func TestConfigurationStore(t *testing.T) {
	storetest.Configurations(t, func(t *testing.T) storetest.LibraryStore { return newDB(t) })
}
