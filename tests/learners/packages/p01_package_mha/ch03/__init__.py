# 第 3 章：注意力机制 (my notes as a package)
