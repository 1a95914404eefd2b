/*
 * sim/base/layercheck.c - the main() of the layercheck-* executables
 * (meson.build): each links one layer's every object against the layers
 * below it and nothing else, so that a call upward fails the build with an
 * undefined symbol.  It is never run.
 */
int main(void)
{
    return 0;
}
