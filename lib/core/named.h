#pragma once
// The names of an enum's values, one table per enum ({value, name} rows): the name of a value, and the
// value of a name (a word from the command line or a file).
#include <cstddef>
#include <string>

namespace attn {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// The name of `value`; a value with no row (none, where the table lists the whole enum) gets the first row's.
template <class E, std::size_t N>
constexpr const char* enum_name(const EnumName<E> (&table)[N], E value) {
  for (const EnumName<E>& row : table)
    if (row.value == value) return row.name;
  return table[0].name;
}

// The value whose name is `name`, into `value`; false, `value` untouched, where no row has that name.
template <class E, std::size_t N>
bool enum_value(const EnumName<E> (&table)[N], const std::string& name, E& value) {
  for (const EnumName<E>& row : table)
    if (name == row.name) {
      value = row.value;
      return true;
    }
  return false;
}

}  // namespace attn
