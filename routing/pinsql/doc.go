// Package pinsql keeps routing session pins in the app database through
// gorm, on SQLite and Postgres alike (table routing_pins, migration 00200),
// so pins survive a restart and are shared by every replica.
//
// Ring: adapter. It implements routing.PinStore and talks only to the
// *gorm.DB it is given.
package pinsql
