package io.jrdma.soft;

import java.io.File;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The class path of the child JVMs the multi-process tests start: this JVM's class path and module path together.
 * Surefire runs these tests on the module path, the classes of the module under test on it and the test classes
 * patched into that module (and on the class path); the child needs none of that and runs everything from its class
 * path. On the class path, the module path is empty and this is {@code java.class.path}.
 */
public final class ChildClassPath {

    private ChildClassPath() {
    }

    public static String get() {
        Set<String> entries = new LinkedHashSet<>();
        for (String property : new String[] {"java.class.path", "jdk.module.path"}) {
            String value = System.getProperty(property, "");
            for (String e : value.split(File.pathSeparator)) {
                if (!e.isEmpty()) {
                    entries.add(e);
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
