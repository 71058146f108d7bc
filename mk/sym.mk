# Symbols and line tables: ELF readers in the translator, lookup and
# SystemTap-exact formatting in the runtime's pure core.

UTAP_SRCS += translator/elf/debuginfo.c
